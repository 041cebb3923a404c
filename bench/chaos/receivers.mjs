import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

/**
 * The firms' webhook receivers: one HTTP server on 127.0.0.1, one path per endpoint
 * (/hook/<tag>). Each answers 200 at once and logs every POST it got: which
 * endpoint, the webhook-id and type, when its headers arrived, and whether its
 * signature verified with that endpoint's secret (set once the endpoint exists).
 */
export async function startReceivers() {
  const log = [];
  const secrets = new Map();
  const server = createServer((req, res) => {
    const at = Date.now();
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const tag = req.url.replace(/^\/hook\//, '');
      const type = typeOf(body);
      log.push({ tag, id: req.headers['webhook-id'], type, at, signed: verify(secrets.get(tag), req.headers, body) });
      res.end('ok');
    });
  });
  // A kill mid-send resets the connection: nothing to do but drop it.
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    log,
    urlFor: (tag) => `${base}/hook/${tag}`,
    setSecret: (tag, secret) => secrets.set(tag, secret),
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Standard Webhooks: v1,base64(HMAC-SHA256(secret, id.timestamp.body)); several signatures may be sent, space-separated. */
function verify(secret, headers, body) {
  if (!secret) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest();
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((s) => {
      const got = Buffer.from(s.replace(/^v1,/, ''), 'base64');
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
}

function typeOf(body) {
  try {
    return JSON.parse(body).type ?? null;
  } catch {
    return null;
  }
}
