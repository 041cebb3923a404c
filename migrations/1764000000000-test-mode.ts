import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Test mode: every key, call, lead, event and webhook endpoint is either live or test, and a key sees only
 * its own mode's rows, as it sees only its own firm's. Rows that belong to a call (references, transcript,
 * recording, links) follow their call; deliveries follow their endpoint and event. Existing rows are live.
 *
 * events gains a column only (no index, no constraint): a later migration recreates it partitioned by copying
 * columns. The firm list indexes of calls and leads lead with (org_id, livemode), so a mode's page is an index
 * range whatever the other mode holds.
 */
export class TestMode1764000000000 implements MigrationInterface {
  name = 'TestMode1764000000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['api_keys', 'calls', 'leads', 'events', 'webhook_endpoints']) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN livemode boolean NOT NULL DEFAULT true`);
    }
    await q.query(`DROP INDEX calls_org_started_idx`);
    await q.query(`CREATE INDEX calls_org_started_idx ON calls (org_id, livemode, started_at DESC, call_id DESC)`);
    await q.query(`DROP INDEX calls_org_from_idx`);
    await q.query(
      `CREATE INDEX calls_org_from_idx ON calls (org_id, livemode, from_e164, started_at DESC, call_id DESC) WHERE from_e164 IS NOT NULL`,
    );
    await q.query(`DROP INDEX leads_org_captured_idx`);
    await q.query(`CREATE INDEX leads_org_captured_idx ON leads (org_id, livemode, captured_at DESC, lead_id DESC)`);
    await q.query(`DROP INDEX leads_org_status_idx`);
    await q.query(`CREATE INDEX leads_org_status_idx ON leads (org_id, livemode, status, captured_at DESC, lead_id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX leads_org_status_idx`);
    await q.query(`CREATE INDEX leads_org_status_idx ON leads (org_id, status, captured_at DESC, lead_id DESC)`);
    await q.query(`DROP INDEX leads_org_captured_idx`);
    await q.query(`CREATE INDEX leads_org_captured_idx ON leads (org_id, captured_at DESC, lead_id DESC)`);
    await q.query(`DROP INDEX calls_org_from_idx`);
    await q.query(
      `CREATE INDEX calls_org_from_idx ON calls (org_id, from_e164, started_at DESC, call_id DESC) WHERE from_e164 IS NOT NULL`,
    );
    await q.query(`DROP INDEX calls_org_started_idx`);
    await q.query(`CREATE INDEX calls_org_started_idx ON calls (org_id, started_at DESC, call_id DESC)`);
    for (const table of ['webhook_endpoints', 'events', 'leads', 'calls', 'api_keys']) {
      await q.query(`ALTER TABLE ${table} DROP COLUMN livemode`);
    }
  }
}
