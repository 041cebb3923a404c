import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Webhook endpoints and their deliveries (attempts are kept on the delivery row). */
export class Webhooks1763910100000 implements MigrationInterface {
  name = 'Webhooks1763910100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        url text NOT NULL,
        description text,
        event_types text[] NOT NULL,
        status text NOT NULL CHECK (status IN ('enabled', 'disabled')),
        disabled_reason text CHECK (disabled_reason IN ('owner', 'failing', 'gone')),
        -- AES-256-GCM under WEBHOOK_SECRET_KEY, bound to the endpoint id; never the plain secret.
        secret_enc text NOT NULL,
        secret_last4 text NOT NULL,
        last_success_at timestamptz,
        last_failure_at timestamptz,
        failing_since timestamptz,
        -- Created or last turned back on: the 3-day "no success" rule counts from here at the earliest.
        health_since timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK ((status = 'enabled') = (disabled_reason IS NULL))
      )`);
    await q.query(`CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints (org_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('event', 'test', 'redelivery')),
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempt_count integer NOT NULL DEFAULT 0,
        attempts jsonb NOT NULL DEFAULT '[]',
        next_attempt_at timestamptz,
        completed_at timestamptz,
        -- Lease of the worker sending it (database time), and which claim holds it.
        locked_until timestamptz,
        claim_token uuid,
        created_at timestamptz NOT NULL
      ) WITH (fillfactor = 80)`);
    // Free space per page lets the claim's lease update (no indexed column) be a HOT update.
    // The dispatcher's claim: due pending deliveries, oldest due first.
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_org_idx ON webhook_deliveries (org_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (org_id, event_id, created_at DESC, id DESC)`);
    // Test and redeliver requests in the last minute (rate limit).
    await q.query(`CREATE INDEX webhook_deliveries_manual_idx ON webhook_deliveries (endpoint_id, created_at) WHERE trigger <> 'event'`);
    // Retention scans by age; rows arrive in created_at order, so a BRIN index is enough and costs almost nothing to maintain.
    await q.query(`CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries USING brin (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS webhook_deliveries`);
    await q.query(`DROP TABLE IF EXISTS webhook_endpoints`);
  }
}
