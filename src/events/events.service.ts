import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../common/clock.js';
import { newEventId } from '../common/ids.js';
import { EventEntity } from './entities/event.entity.js';
import type { EventEnvelope, EventType, RecordedEvent } from './event-types.js';

/** Runs inside the transaction that recorded the event (webhook fan-out). */
export type EventFanOut = (manager: EntityManager, event: RecordedEvent) => Promise<void>;

export function toEnvelope(row: Pick<EventEntity, 'id' | 'type' | 'occurredAt' | 'orgId' | 'test' | 'data'>): EventEnvelope {
  return { id: row.id, type: row.type as EventType, timestamp: row.occurredAt.toISOString(), org: { id: row.orgId }, test: row.test, data: row.data };
}

/**
 * The transactional outbox. A change and the events it causes are written by
 * the same transaction (the caller's manager), whether or not any webhook
 * endpoint exists; fan-out handlers add deliveries in that transaction too.
 */
@Injectable()
export class EventsService {
  private readonly fanOuts: EventFanOut[] = [];

  constructor(private readonly clock: Clock) {}

  /** Webhooks registers its fan-out here at start-up (events does not import webhooks). */
  registerFanOut(handler: EventFanOut): void {
    this.fanOuts.push(handler);
  }

  async record(manager: EntityManager, input: { orgId: string; type: EventType; data: Record<string, unknown>; test?: boolean }): Promise<RecordedEvent> {
    const now = this.clock.now();
    const row = manager.getRepository(EventEntity).create({
      id: newEventId(now),
      orgId: input.orgId,
      type: input.type,
      test: input.test ?? false,
      occurredAt: now,
      data: input.data,
    });
    await manager.getRepository(EventEntity).insert(row);
    const event: RecordedEvent = { seq: row.seq, orgId: input.orgId, envelope: toEnvelope(row) };
    for (const fanOut of this.fanOuts) await fanOut(manager, event);
    return event;
  }
}
