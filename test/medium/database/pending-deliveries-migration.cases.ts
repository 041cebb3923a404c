import pg from 'pg';
import { MIGRATIONS } from '../../../migrations';
import { PendingDeliveries1764330000000 } from '../../../migrations/1764330000000-pending-deliveries';
import { databaseWith, migrationsThrough } from '../../support/migrated-database';

describe('migration 1764330000000: the pending deliveries move to a queue of their own', () => {
  it('copies each pending delivery with its lease into the queue, leaves finished ones out, and takes the lease off the log', async () => {
    const url = await databaseWith(MIGRATIONS.slice(0, MIGRATIONS.indexOf(PendingDeliveries1764330000000)));
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const sql = async (text: string, params?: unknown[]) => (await c.query(text, params)).rows;
      const [{ id: org }] = await sql(`INSERT INTO orgs (slug) VALUES ('firm') RETURNING id`);
      const [{ id: endpoint }] = await sql(
        `INSERT INTO webhook_endpoints (id, org_id, url, event_types, status, secret_enc, secret_last4, health_since, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, 'https://receiver.example/hook', '{lead.created}', 'enabled', 's', 'abcd', now(), now(), now()) RETURNING id`,
        [org],
      );
      const at = new Date(Date.now() - 3_600_000);
      const delivery = async (status: string, attempts: number, lease: boolean) =>
        (
          await sql(
            `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, attempt_count, next_attempt_at,
                                             created_at, event_occurred_at, locked_until, claim_token)
             VALUES (gen_random_uuid(), $1, $2, 'evt_1', 'lead.created', 'event', $3, $4, CASE WHEN $3 = 'pending' THEN $5::timestamptz END,
                     $5, $5, CASE WHEN $6 THEN now() + interval '1 minute' END, CASE WHEN $6 THEN gen_random_uuid() END)
             RETURNING id, claim_token`,
            [org, endpoint, status, attempts, at, lease],
          )
        )[0] as { id: string; claim_token: string | null };
      const waiting = await delivery('pending', 0, false);
      const held = await delivery('pending', 2, true);
      await delivery('succeeded', 1, false);
      await databaseWith(migrationsThrough(MIGRATIONS, PendingDeliveries1764330000000), url);
      const queued = await sql(
        `SELECT id, created_at, org_id, endpoint_id, event_id, event_type, event_occurred_at, trigger, attempt_count, next_attempt_at,
                claim_token, locked_until IS NOT NULL AS leased
           FROM webhook_pending_deliveries ORDER BY attempt_count`,
      );
      const common = { created_at: at, org_id: org, endpoint_id: endpoint, event_id: 'evt_1', event_type: 'lead.created' };
      expect(queued).toEqual([
        {
          id: waiting.id,
          ...common,
          event_occurred_at: at,
          trigger: 'event',
          attempt_count: 0,
          next_attempt_at: at,
          claim_token: null,
          leased: false,
        },
        {
          id: held.id,
          ...common,
          event_occurred_at: at,
          trigger: 'event',
          attempt_count: 2,
          next_attempt_at: at,
          claim_token: held.claim_token,
          leased: true,
        },
      ]);
      const logColumns = await sql(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'webhook_deliveries' AND column_name IN ('locked_until', 'claim_token')`,
      );
      expect(logColumns).toEqual([]);
      // Room on each page for a batch's new versions beside the old ones (HOT updates), new days included.
      const storage = await sql(
        `SELECT DISTINCT array_to_string(c.reloptions, ',') AS storage FROM pg_class c
          WHERE c.oid = 'webhook_pending_deliveries'::regclass
             OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'webhook_deliveries'::regclass)`,
      );
      expect(storage).toEqual([{ storage: 'fillfactor=40' }]);
      // Deleting the endpoint takes its queued deliveries with it, as it takes the log's.
      await sql(`DELETE FROM webhook_endpoints WHERE id = $1`, [endpoint]);
      expect(await sql(`SELECT id FROM webhook_pending_deliveries`)).toEqual([]);
    } finally {
      await c.end();
    }
  });
});
