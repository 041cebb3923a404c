import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** The HMAC key: the base64-decoded part of the secret after `whsec_`. */
export function signingKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a signing secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{raw body}`. */
export function sign(key: Buffer, msgId: string, timestampSeconds: number, body: string | Buffer): string {
  const mac = createHmac('sha256', key);
  mac.update(`${msgId}.${timestampSeconds}.`, 'utf8');
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/**
 * The headers of one attempt. The timestamp is this attempt's time, the id the event's.
 * Several keys (a rotation's overlap) give space-separated signatures, newest first, as Standard Webhooks allows.
 */
export function webhookHeaders(keys: Buffer | Buffer[], msgId: string, at: Date, body: string): Record<string, string> {
  const ts = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'receptionist-webhooks/1',
    'webhook-id': msgId,
    'webhook-timestamp': String(ts),
    'webhook-signature': (Array.isArray(keys) ? keys : [keys]).map((key) => sign(key, msgId, ts, body)).join(' '),
  };
}
