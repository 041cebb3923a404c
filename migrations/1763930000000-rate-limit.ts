import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * One token bucket per API key for the general rate limit, shared by every api
 * process. UNLOGGED: losing the buckets in a crash only refills them.
 */
export class RateLimit1763930000000 implements MigrationInterface {
  name = 'RateLimit1763930000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNLOGGED TABLE rate_limit_buckets (
        key_id uuid PRIMARY KEY REFERENCES api_keys (id) ON DELETE CASCADE,
        tokens double precision NOT NULL,
        allowed boolean NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE rate_limit_buckets');
  }
}
