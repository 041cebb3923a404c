#!/usr/bin/env node
// Reference integration: a webhook receiver. Verifies Standard Webhooks signatures (stale timestamps
// refused by the 5-minute window), handles each webhook-id once, skips echoes of its own key's writes,
// and on start catches up through GET /v1/events from the last event it handled.
// An endpoint signs with its whsec_ secret (v1, verified by the `standardwebhooks` library), or, created
// with `endpoint create ... --signature ed25519`, with a key pair (v1a): then give its public key instead,
// which verifies without being able to sign (the library does not verify v1a yet; Node's crypto does).
// Usage: PORT=4000 WEBHOOK_SECRET=whsec_... API_URL=http://localhost:3000 API_KEY=svc_live_... STATE_DIR=./rx node examples/webhook-receiver.mjs
//    or: PORT=4000 WEBHOOK_PUBLIC_KEY=whpk_... API_URL=... API_KEY=... STATE_DIR=./rx node examples/webhook-receiver.mjs
import { createPublicKey, verify } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';

const api = process.env.API_URL ?? 'http://localhost:3000';
const dir = process.env.STATE_DIR ?? './receiver-state';
const auth = { authorization: `Bearer ${process.env.API_KEY}` };

/** v1a: an ed25519 signature of `{id}.{timestamp}.{body}`, verified with the endpoint's public key (whpk_ + 32 bytes, base64). */
function publicKeyVerifier(text) {
  if (!text.startsWith('whpk_')) throw new Error('WEBHOOK_PUBLIC_KEY must start with whpk_');
  const x = Buffer.from(text.slice('whpk_'.length), 'base64').toString('base64url');
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  return {
    verify(body, headers) {
      const [id, ts, sigs] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => String(headers[h] ?? ''));
      if (!id || !/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) throw new Error('missing or stale timestamp');
      const content = Buffer.from(`${id}.${ts}.${body}`, 'utf8');
      // Several values during a key rotation, space-separated: any one v1a value that verifies will do.
      const ok = sigs.split(' ').some((s) => s.startsWith('v1a,') && verify(null, content, key, Buffer.from(s.slice(4), 'base64')));
      if (!ok) throw new Error('no v1a signature verifies');
      return JSON.parse(body);
    },
  };
}

const webhook = process.env.WEBHOOK_PUBLIC_KEY
  ? publicKeyVerifier(process.env.WEBHOOK_PUBLIC_KEY)
  : new Webhook(process.env.WEBHOOK_SECRET ?? '');
mkdirSync(dir, { recursive: true });

const stateFile = join(dir, 'state.json');
/** seen: handled webhook-ids (the newest 10,000); last: the newest event handled, where catch-up starts. */
const state = (() => {
  try {
    return JSON.parse(readFileSync(stateFile, 'utf8'));
  } catch {
    return { seen: [], last: null };
  }
})();
const seen = new Set(state.seen);

/** What the integration does with an event; here, one line in handled.ndjson. */
function handle(event, via, ownKeyId) {
  if (seen.has(event.id)) return 'duplicate';
  const echo = event.type === 'lead.updated' && event.data?.changed_by?.id === ownKeyId;
  appendFileSync(
    join(dir, 'handled.ndjson'),
    `${JSON.stringify({ id: event.id, type: event.type, via, action: echo ? 'skipped-echo' : 'handled' })}\n`,
  );
  seen.add(event.id);
  if (!state.last || event.id > state.last) state.last = event.id;
  writeFileSync(stateFile, JSON.stringify({ seen: [...seen].slice(-10_000), last: state.last }));
  return echo ? 'skipped-echo' : 'handled';
}

async function get(path) {
  const res = await fetch(new URL(path, api), { headers: auth });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * One page of the events log after `after` (none: from the oldest kept). A database failover can lose the event
 * `after` names: the service then answers 400 after_lost with restart_after, the event to go on from.
 */
async function eventsAfter(after) {
  const query = after ? `?after=${encodeURIComponent(after)}&limit=100` : '?limit=100';
  const res = await fetch(new URL(`/v1/events${query}`, api), { headers: auth });
  const body = await res.json();
  if (res.status === 400 && body.code === 'after_lost') return { lost: true, restartAfter: body.restart_after };
  if (!res.ok) throw new Error(`GET /v1/events: ${res.status} ${JSON.stringify(body)}`);
  return { lost: false, page: body };
}

/** Events recorded while this receiver was down (the log keeps 30 days), in order; handled ids are skipped. */
async function catchUp(ownKeyId) {
  if (!state.last) return;
  for (let after = state.last; ;) {
    const answer = await eventsAfter(after);
    if (answer.lost) {
      after = answer.restartAfter;
      continue;
    }
    for (const event of answer.page.events) handle(event, 'catch-up', ownKeyId);
    if (!answer.page.has_more) return;
    after = answer.page.next_after;
  }
}

const ownKeyId = (await get('/v1/account')).api_key?.id ?? null;
await catchUp(ownKeyId);

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      event = webhook.verify(body, req.headers);
    } catch (err) {
      res.writeHead(401).end(`refused: ${err.message}`);
      return;
    }
    res.writeHead(200).end(handle(event, 'webhook', ownKeyId));
  });
});
server.listen(Number(process.env.PORT ?? 4000), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
