import { Injectable } from '@nestjs/common';
import { EventsService } from '../events/index.js';
import type { Tx } from '../database/sql.js';
import type { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
import type { DisabledReason } from './webhook-model.js';

/** The endpoint an event is about: its firm and mode are the event's. */
type About = Pick<WebhookEndpointEntity, 'id' | 'orgId' | 'livemode'>;

/**
 * The events about the webhooks themselves, recorded in the transaction of the change they report (the outbox): in
 * the events log, listed and filtered like any other, and fanned out to the endpoints subscribed to them. An
 * endpoint turned off is off before its event is recorded, so the fan-out never sends that event to it (it gets the
 * record of a missed delivery, as for any event while it is off).
 */
@Injectable()
export class EndpointEvents {
  constructor(private readonly events: EventsService) {}

  async disabled(tx: Tx, e: About, reason: DisabledReason): Promise<void> {
    await this.events.record(tx, { ...feedOf(e), type: 'webhook_endpoint.disabled', data: { endpoint_id: e.id, reason } });
  }

  async enabled(tx: Tx, e: About): Promise<void> {
    await this.events.record(tx, { ...feedOf(e), type: 'webhook_endpoint.enabled', data: { endpoint_id: e.id } });
  }

  /** A delivery that used its last attempt without success, and the status its last attempt got (null: no answer). */
  async exhausted(tx: Tx, e: About, d: { deliveryId: string; eventId: string; lastStatusCode: number | null }): Promise<void> {
    await this.events.record(tx, {
      ...feedOf(e),
      type: 'webhook_delivery.exhausted',
      data: { delivery_id: d.deliveryId, event_id: d.eventId, endpoint_id: e.id, last_status_code: d.lastStatusCode },
    });
  }

  /** The first success after a run of failures that began at `failingSince`. */
  async recovered(tx: Tx, e: About, failingSince: Date): Promise<void> {
    await this.events.record(tx, {
      ...feedOf(e),
      type: 'webhook_endpoint.recovered',
      data: { endpoint_id: e.id, failing_since: failingSince.toISOString() },
    });
  }
}

const feedOf = (e: About) => ({ orgId: e.orgId, livemode: e.livemode });
