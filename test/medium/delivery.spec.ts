/**
 * What leaves the service: webhook deliveries (the worker dispatches every delivery in its database), the owner
 * email outbox and the event feed (it moves the clock and drops day partitions), the rule for changing an endpoint and what the console shows of its deliveries. Each case keeps its own context.
 */
import './delivery/webhooks.cases';
import './delivery/endpoint-updates.cases';
import './delivery/delivery-history.cases';
import './delivery/mail.cases';
import './delivery/events.cases';
import './delivery/event-histories.cases';
import './delivery/webhook-signatures.cases';
import './delivery/webhook-operational-events.cases';
