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
});
