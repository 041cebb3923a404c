import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The log's day partitions, the DEFAULT one (which new days copy) among them: their fillfactor. */
async function setPartitionsFillfactor(q: QueryRunner, fillfactor: number): Promise<void> {
  const partitions: { name: string }[] = await q.query(
    `SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'webhook_deliveries'::regclass ORDER BY 1`,
  );
  for (const { name } of partitions) await q.query(`ALTER TABLE ${name} SET (fillfactor = ${fillfactor})`);
}

/**
 * The dispatcher's queue moves out of the deliveries log (issue 45): `webhook_pending_deliveries` holds each pending
 * delivery's due time, lease and what a claim needs to send it, one small heap with one index; the log
 * (`webhook_deliveries`) keeps every delivery as the API shows it, without the lease columns and the due index, so a
 * claim touches only the queue and an attempt's result is a HOT update of the log's row. Pending deliveries are
 * copied with their leases, so a worker that holds one keeps it. Workers of the tree before this must be stopped
 * first: they lease in the log's columns, which this removes.
 *
 * Both tables get `fillfactor = 40`: a claim's batch and a result's batch rewrite consecutive rows of a page in one
 * statement, and a new version stays on its page (a HOT update, no index entry) only while the page holds the old
 * versions and the new ones together; a log row grows by its attempt (about 250 to 380 bytes). New day partitions
 * take their storage from the DEFAULT partition (TimePartitions.ensureDay); existing ones apply it to new pages.
 */
export class PendingDeliveries1764330000000 implements MigrationInterface {
  name = 'PendingDeliveries1764330000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_pending_deliveries (
        id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        org_id uuid NOT NULL,
        endpoint_id uuid NOT NULL,
        event_id text NOT NULL,
        event_type text NOT NULL,
        event_occurred_at timestamptz,
        trigger text NOT NULL,
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        locked_until timestamptz,
        claim_token uuid,
        CONSTRAINT webhook_pending_deliveries_pkey PRIMARY KEY (id),
        CONSTRAINT webhook_pending_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        CONSTRAINT webhook_pending_deliveries_trigger_check CHECK (trigger IN ('event', 'test', 'redelivery')),
        CONSTRAINT webhook_pending_deliveries_lease_check CHECK ((claim_token IS NULL) = (locked_until IS NULL))
      ) WITH (fillfactor = 40)`);
    await q.query('CREATE INDEX webhook_pending_deliveries_due_idx ON webhook_pending_deliveries (next_attempt_at)');
    await q.query(`
      INSERT INTO webhook_pending_deliveries (id, created_at, org_id, endpoint_id, event_id, event_type, event_occurred_at, trigger,
                                              attempt_count, next_attempt_at, locked_until, claim_token)
      SELECT id, created_at, org_id, endpoint_id, event_id, event_type, event_occurred_at, trigger, attempt_count,
             coalesce(next_attempt_at, created_at), CASE WHEN claim_token IS NOT NULL THEN locked_until END,
             CASE WHEN locked_until IS NOT NULL THEN claim_token END
        FROM webhook_deliveries WHERE status = 'pending'`);
    await q.query('DROP INDEX webhook_deliveries_due_idx');
    await q.query('ALTER TABLE webhook_deliveries DROP COLUMN locked_until, DROP COLUMN claim_token');
    await setPartitionsFillfactor(q, 40);
  }

  async down(q: QueryRunner): Promise<void> {
    await setPartitionsFillfactor(q, 80);
    await q.query('ALTER TABLE webhook_deliveries ADD COLUMN locked_until timestamptz, ADD COLUMN claim_token uuid');
    await q.query(`
      UPDATE webhook_deliveries d SET locked_until = p.locked_until, claim_token = p.claim_token
        FROM webhook_pending_deliveries p WHERE d.id = p.id AND d.created_at = p.created_at`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query('DROP TABLE webhook_pending_deliveries');
  }
}
