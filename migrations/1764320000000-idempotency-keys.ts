import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * `Idempotency-Key` on every POST under /v1 (issue 42): one row per API key and idempotency key, kept 24 hours. A
 * logged table on purpose (not UNLOGGED like the rate buckets): a stored answer must survive a crash and a failover,
 * or a retry after one would run the request a second time. While the first request runs, the row holds a lease in
 * database time (`locked_until`, with the claim's token); once it answers, its status and its sealed answer.
 */
export class IdempotencyKeys1764320000000 implements MigrationInterface {
  name = 'IdempotencyKeys1764320000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        key_id uuid NOT NULL,
        idempotency_key text NOT NULL,
        request_hash text NOT NULL,
        created_at timestamptz NOT NULL,
        locked_until timestamptz,
        claim_token uuid,
        status_code integer,
        answer text,
        CONSTRAINT idempotency_keys_pkey PRIMARY KEY (key_id, idempotency_key),
        CONSTRAINT idempotency_keys_key_id_fkey FOREIGN KEY (key_id) REFERENCES api_keys (id) ON DELETE CASCADE,
        CONSTRAINT idempotency_keys_lease_check CHECK ((claim_token IS NULL) = (locked_until IS NULL)),
        CONSTRAINT idempotency_keys_answer_check CHECK ((status_code IS NULL) = (answer IS NULL))
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
