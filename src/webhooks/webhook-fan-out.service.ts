import { Injectable, OnModuleInit } from '@nestjs/common';
import type { Tx } from '../database/sql.js';
import { EventsService, type RecordedEvent } from '../events/index.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';

/**
 * Registered with EventsService at start-up: inside the transaction that
 * records an event, one delivery per endpoint subscribed to its type (pending
 * when the endpoint is on; failed, never sent, when it is off: the record of
 * what it missed, to redeliver), then NOTIFY when any is pending (delivered to
 * the dispatchers at commit). webhook.test events are never fanned out; the
 * test route creates their one delivery.
 */
@Injectable()
export class WebhookFanOut implements OnModuleInit {
  constructor(
    private readonly events: EventsService,
    private readonly deliveries: WebhookDeliveriesRepository,
  ) {}

  onModuleInit(): void {
    this.events.registerFanOut((tx, event) => this.fanOut(tx, event));
  }

  async fanOut(tx: Tx, event: RecordedEvent): Promise<void> {
    if (event.envelope.type === 'webhook.test') return;
    const pending = await this.deliveries.fanOut(tx, {
      orgId: event.orgId,
      eventId: event.envelope.id,
      eventType: event.envelope.type,
      livemode: event.envelope.livemode,
      at: new Date(event.envelope.timestamp),
    });
    if (pending > 0) await this.deliveries.notify(tx);
  }
}
