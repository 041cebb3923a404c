import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { StoredAnswer } from '../common/http/idempotency-stage.js';

const VERSION = 'v1';
const SALT = 'receptionist-api idempotency answer v1';

/**
 * The answer's key: HKDF-SHA256 of the API key itself (which the service stores only as a hash) and the idempotency
 * key. Only a request carrying both can open the answer, so the table alone reveals nothing, not even a recording
 * link's url (a credential) that a replay of POST .../recording-link must give back.
 */
function answerKey(apiKey: string, idempotencyKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', apiKey, SALT, idempotencyKey, 32));
}

/** AES-256-GCM; `boundTo` (the key's id) is authenticated data, so a sealed answer copied to another row does not open. */
export function sealAnswer(answer: StoredAnswer, secret: { apiKey: string; idempotencyKey: string }, boundTo: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', answerKey(secret.apiKey, secret.idempotencyKey), iv);
  cipher.setAAD(Buffer.from(boundTo, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(answer), 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

/** The stored answer, or null when it does not open with this request's API key (it cannot be this key's). */
export function openAnswer(sealed: string, secret: { apiKey: string; idempotencyKey: string }, boundTo: string): StoredAnswer | null {
  const [version, payload] = sealed.split('.', 2);
  if (version !== VERSION || !payload) return null;
  try {
    const raw = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', answerKey(secret.apiKey, secret.idempotencyKey), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as StoredAnswer;
  } catch {
    return null;
  }
}
