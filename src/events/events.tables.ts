import { defineTable } from '../database/tables.js';

/** A row of `events`, as node-postgres returns it. */
export interface EventsRow {
  seq: string;
  id: string;
  org_id: string;
  type: string;
  test: boolean;
  occurred_at: Date;
  data: Record<string, unknown>;
  txid: string;
  /** The W3C traceparent of the span that recorded it, when tracing was on: its delivery attempts continue that trace. */
  trace_context: string | null;
  /** false: an event of test-mode data, listed to test keys and fanned out to test endpoints only. */
  livemode: boolean;
}

export const EVENTS_TABLE = defineTable<EventsRow>('events', {
  seq: 'bigint',
  id: 'text',
  org_id: 'uuid',
  type: 'text',
  test: 'boolean',
  occurred_at: 'timestamp with time zone',
  data: 'json',
  txid: 'xid8',
  trace_context: 'text null',
  livemode: 'boolean',
});
