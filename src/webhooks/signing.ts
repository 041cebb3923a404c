import { createHmac, createPrivateKey, createPublicKey, sign as signWith, type KeyObject } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
/** An ed25519 private key (PKCS#8, base64), as sealed at rest; never shown. */
export const PRIVATE_KEY_PREFIX = 'whsk_';
/** An ed25519 public key (its 32 raw bytes, base64), as shown to the owner: what a receiver verifies `v1a` with. */
export const PUBLIC_KEY_PREFIX = 'whpk_';

/** Standard Webhooks' schemes: `v1` HMAC-SHA256 with a shared secret, `v1a` ed25519 with a key pair. */
export type SignatureScheme = 'v1' | 'v1a';
export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = ['v1', 'v1a'];

/** What signs an attempt: the HMAC key of a `whsec_` secret (v1), or an ed25519 private key (v1a). */
export type SigningKey = Buffer | KeyObject;

/** The HMAC key: the base64-decoded part of the secret after `whsec_`. */
export function signingKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a signing secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** The key a sealed secret holds, of either scheme: `whsec_` (v1) or `whsk_` (v1a). */
export function keyOfSecret(secret: string): SigningKey {
  if (!secret.startsWith(PRIVATE_KEY_PREFIX)) return signingKey(secret);
  return createPrivateKey({ key: Buffer.from(secret.slice(PRIVATE_KEY_PREFIX.length), 'base64'), format: 'der', type: 'pkcs8' });
}

/** The scheme a sealed secret signs with. */
export const schemeOfSecret = (secret: string): SignatureScheme => (secret.startsWith(PRIVATE_KEY_PREFIX) ? 'v1a' : 'v1');

/** `whpk_` + the 32 raw bytes of an ed25519 public key, base64 (what Standard Webhooks and Svix show). */
export function publicKeyText(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  return `${PUBLIC_KEY_PREFIX}${Buffer.from(String(jwk.x), 'base64url').toString('base64')}`;
}

/** The ed25519 public key a `whpk_` text names. */
export function publicKeyOf(text: string): KeyObject {
  if (!text.startsWith(PUBLIC_KEY_PREFIX)) throw new Error('a public key starts with whpk_');
  const raw = Buffer.from(text.slice(PUBLIC_KEY_PREFIX.length), 'base64');
  if (raw.length !== 32) throw new Error('an ed25519 public key is 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

/**
 * Standard Webhooks: the signed content is `{id}.{timestamp}.{raw body}`. An HMAC key gives `v1,` + base64
 * HMAC-SHA256 of it; an ed25519 private key gives `v1a,` + its base64 ed25519 signature.
 */
export function sign(key: SigningKey, msgId: string, timestampSeconds: number, body: string | Buffer): string {
  if (Buffer.isBuffer(key)) {
    const mac = createHmac('sha256', key);
    mac.update(`${msgId}.${timestampSeconds}.`, 'utf8');
    mac.update(body);
    return `v1,${mac.digest('base64')}`;
  }
  const signed = Buffer.concat([
    Buffer.from(`${msgId}.${timestampSeconds}.`, 'utf8'),
    Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
  ]);
  return `v1a,${signWith(null, signed, key).toString('base64')}`;
}

/**
 * The headers of one attempt. The timestamp is this attempt's time, the id the event's.
 * Several keys (a rotation's overlap) give space-separated signatures, newest first, as Standard Webhooks allows.
 */
export function webhookHeaders(keys: SigningKey | SigningKey[], msgId: string, at: Date, body: string): Record<string, string> {
  const ts = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'receptionist-webhooks/1',
    'webhook-id': msgId,
    'webhook-timestamp': String(ts),
    'webhook-signature': (Array.isArray(keys) ? keys : [keys]).map((key) => sign(key, msgId, ts, body)).join(' '),
  };
}
