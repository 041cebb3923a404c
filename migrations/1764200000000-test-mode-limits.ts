import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Test mode's limits (docs/decisions.md, issue 30). `key_allowances`: what a key may still do of an allowance counted
 * over time (the test helpers' test calls per hour), a token bucket per key and allowance shared by every api process,
 * taken one at a time in one upsert that changes nothing when it refuses. And the
 * index the retention job finds expired test calls by, oldest first, touching no live call.
 */
export class TestModeLimits1764200000000 implements MigrationInterface {
  name = 'TestModeLimits1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE key_allowances (
        key_id uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
        allowance text NOT NULL,
        tokens double precision NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (key_id, allowance)
      )`);
    await q.query(`CREATE INDEX calls_test_created_idx ON calls (created_at) WHERE NOT livemode`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX calls_test_created_idx`);
    await q.query(`DROP TABLE key_allowances`);
  }
}
