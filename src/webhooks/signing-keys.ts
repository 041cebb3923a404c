import type { Logger } from '@nestjs/common';
import type { SecretBox } from './secret-box.js';
import { keyOfSecret, type SigningKey } from './signing.js';

/** What an endpoint signs with, as the dispatcher's claim reads it. */
export interface EndpointSecrets {
  endpointId: string;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * Opened signing keys by endpoint, kept while the sealed secret is unchanged: an HMAC key (a `whsec_` secret, v1) or
 * an ed25519 private key (a `whsk_` one, v1a), as the sealed text says.
 * During a rotation's overlap the replaced secret signs too, after the new one.
 */
export class SigningKeys {
  private readonly opened = new Map<string, { sealed: string; key: SigningKey }>();

  constructor(
    private readonly secrets: SecretBox,
    private readonly logger: Logger,
  ) {}

  /** The keys to sign with at `at`, newest first; null when the current secret cannot be opened. */
  for(e: EndpointSecrets, at: Date): SigningKey[] | null {
    const current = this.open(e.endpointId, 'current', e.secretEnc);
    if (!current) return null;
    const overlapping = e.previousSecretEnc !== null && e.previousSecretExpiresAt !== null && e.previousSecretExpiresAt > at;
    const previous = overlapping ? this.open(e.endpointId, 'previous', e.previousSecretEnc!) : null;
    return previous ? [current, previous] : [current];
  }

  private open(endpointId: string, slot: 'current' | 'previous', sealed: string): SigningKey | null {
    const cacheKey = `${endpointId}/${slot}`;
    const cached = this.opened.get(cacheKey);
    if (cached && cached.sealed === sealed) return cached.key;
    try {
      const key = keyOfSecret(this.secrets.open(sealed, endpointId));
      this.opened.set(cacheKey, { sealed, key });
      return key;
    } catch (err) {
      this.logger.error(
        { endpoint_id: endpointId, secret: slot, err },
        'the endpoint signing secret cannot be decrypted (was WEBHOOK_SECRET_KEY changed?)',
      );
      return null;
    }
  }
}
