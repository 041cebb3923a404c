import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Public-key signatures (issue 42): an endpoint signs with Standard Webhooks' `v1` (HMAC-SHA256, a shared `whsec_`
 * secret: every endpoint so far, and the default) or `v1a` (ed25519). For `v1a` the sealed secret columns hold the
 * private key (`whsk_`, sealed like a secret) and `public_key` the public key a receiver verifies with (`whpk_`, not
 * a secret, shown in the API).
 */
export class WebhookSignatureSchemes1764320100000 implements MigrationInterface {
  name = 'WebhookSignatureSchemes1764320100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        ADD COLUMN signature text NOT NULL DEFAULT 'v1',
        ADD COLUMN public_key text,
        ADD CONSTRAINT webhook_endpoints_signature_check CHECK (signature IN ('v1', 'v1a')),
        ADD CONSTRAINT webhook_endpoints_public_key_check CHECK ((signature = 'v1a') = (public_key IS NOT NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE webhook_endpoints
        DROP CONSTRAINT IF EXISTS webhook_endpoints_public_key_check,
        DROP CONSTRAINT IF EXISTS webhook_endpoints_signature_check,
        DROP COLUMN IF EXISTS public_key,
        DROP COLUMN IF EXISTS signature`);
  }
}
