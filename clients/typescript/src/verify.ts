// Verifying a delivery (Standard Webhooks) with Node's crypto, for both of the service's schemes: `v1` (HMAC-SHA256
// with the endpoint's `whsec_` secret) and `v1a` (ed25519, with the endpoint's `whpk_` public key: a receiver that
// holds only it cannot sign, so a leaked receiver configuration forges nothing). The official JavaScript library
// verifies `v1` only.
import { createHmac, createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import type { WebhookEvent } from './webhooks.js';

export interface VerifyOptions {
  /** The endpoint's signing secret (`whsec_...`): verifies `v1` signatures. */
  secret?: string;
  /** The endpoint's public key (`whpk_...`, `public_key` of GET /v1/webhook-endpoints): verifies `v1a` signatures. */
  publicKey?: string;
  /** How far the `webhook-timestamp` may be from now, in seconds (default 300, as the service documents). */
  toleranceSeconds?: number;
  /** Now (tests). */
  now?: Date;
}

/** A delivery that did not verify: refuse it (answer 401 or 400, never 2xx). */
export class WebhookVerificationError extends Error {}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()]);
  const text = Array.isArray(value) ? value.join(' ') : value;
  if (!text) throw new WebhookVerificationError(`missing ${name} header`);
  return text;
}

function hmacKey(secret: string): Buffer {
  if (!secret.startsWith('whsec_')) throw new WebhookVerificationError('a signing secret starts with whsec_');
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

function publicKey(text: string): KeyObject {
  if (!text.startsWith('whpk_')) throw new WebhookVerificationError('a public key starts with whpk_');
  const raw = Buffer.from(text.slice('whpk_'.length), 'base64');
  if (raw.length !== 32) throw new WebhookVerificationError('an ed25519 public key is 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

/** Whether one `scheme,base64` value verifies the signed content with the keys given (a scheme without a key: false). */
function verifiesOne(value: string, content: Buffer, keys: { hmac?: Buffer; ed25519?: KeyObject }): boolean {
  const comma = value.indexOf(',');
  const [scheme, signature] = [value.slice(0, comma), Buffer.from(value.slice(comma + 1), 'base64')];
  if (scheme === 'v1' && keys.hmac) {
    const expected = createHmac('sha256', keys.hmac).update(content).digest();
    return signature.length === expected.length && timingSafeEqual(signature, expected);
  }
  if (scheme === 'v1a' && keys.ed25519) return signature.length === 64 && verify(null, content, keys.ed25519, signature);
  return false;
}

/**
 * Verifies a delivery's raw body (the bytes as received, before any JSON parsing) against its headers and returns the
 * event. It is accepted when its timestamp is within the tolerance and any one of its signatures (several during a
 * rotation, space-separated) verifies with the secret or the public key given; otherwise WebhookVerificationError.
 */
export function verifyWebhook(rawBody: string | Buffer, headers: HeaderBag, options: VerifyOptions): WebhookEvent {
  if (!options.secret && !options.publicKey) throw new WebhookVerificationError('give the secret (v1) or the public key (v1a)');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const seconds = Number(timestamp);
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > (options.toleranceSeconds ?? 300))
    throw new WebhookVerificationError('the webhook-timestamp is missing, malformed or too far from now');
  const body = Buffer.isBuffer(rawBody) ? rawBody : Buffer.from(rawBody, 'utf8');
  const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const keys = {
    hmac: options.secret ? hmacKey(options.secret) : undefined,
    ed25519: options.publicKey ? publicKey(options.publicKey) : undefined,
  };
  if (!signatures.split(' ').some((value) => verifiesOne(value, content, keys)))
    throw new WebhookVerificationError('no signature verifies with the key given');
  return JSON.parse(body.toString('utf8')) as WebhookEvent;
}
