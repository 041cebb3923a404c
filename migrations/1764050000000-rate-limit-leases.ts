import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Rate-limit leases: an api process takes a batch of tokens from a key's
 * bucket in one statement and spends them locally; the statement records how
 * many it granted (RETURNING can only read the row it wrote).
 */
export class RateLimitLeases1764050000000 implements MigrationInterface {
  name = 'RateLimitLeases1764050000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE rate_limit_buckets ADD COLUMN granted integer NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE rate_limit_buckets DROP COLUMN granted');
  }
}
