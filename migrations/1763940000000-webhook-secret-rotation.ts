import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Signing-secret rotation: the secret replaced by `endpoint rotate-secret` keeps
 * signing alongside the new one until its expiry, so a receiver can switch
 * without losing a delivery.
 */
export class WebhookSecretRotation1763940000000 implements MigrationInterface {
  name = 'WebhookSecretRotation1763940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        -- Sealed like secret_enc (AES-256-GCM under WEBHOOK_SECRET_KEY, bound to the endpoint id).
        ADD COLUMN previous_secret_enc text,
        ADD COLUMN previous_secret_expires_at timestamptz,
        ADD CONSTRAINT webhook_endpoints_previous_secret_check
          CHECK ((previous_secret_enc IS NULL) = (previous_secret_expires_at IS NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        DROP CONSTRAINT IF EXISTS webhook_endpoints_previous_secret_check,
        DROP COLUMN IF EXISTS previous_secret_expires_at,
        DROP COLUMN IF EXISTS previous_secret_enc`);
  }
}
