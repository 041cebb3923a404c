import type pg from 'pg';
import { newEventId } from '../../src/common/ids';
import type { TestApp } from './test-app';

/** Inserts an event row the way EventsService.record does, through a given client (tests hold transactions open with it). */
export async function insertEvent(
  client: pg.ClientBase | pg.Pool,
  orgId: string,
  opts: { type?: string; data?: Record<string, unknown>; at?: Date } = {},
): Promise<string> {
  const at = opts.at ?? new Date();
  const id = newEventId(at);
  await client.query(`INSERT INTO events (id, org_id, type, test, occurred_at, data) VALUES ($1, $2, $3, false, $4, $5)`, [
    id,
    orgId,
    opts.type ?? 'lead.created',
    at,
    JSON.stringify(opts.data ?? { lead_id: `lead_${id.slice(4)}` }),
  ]);
  return id;
}

/** A key created before webhooks existed: same firm, scopes without the webhook ones. */
export async function restrictKey(t: TestApp, keyId: string, scopes: string[]): Promise<void> {
  await t.sql(`UPDATE api_keys SET scopes = $2 WHERE id = $1`, [keyId, scopes]);
}
