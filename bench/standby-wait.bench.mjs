#!/usr/bin/env node
/**
 * What EVENTS_WAIT_FOR_STANDBY costs: the time from an event's COMMIT to its delivery's first attempt arriving, with
 * the worker sending as soon as it may (off) and only once a streaming standby has flushed the commit (on), in one
 * sitting, rounds alternating. A real primary and a real asynchronous streaming standby on loopback (PostgreSQL's
 * own binaries, bench/failover/postgres-node.mjs), one `worker` process per round, one endpoint on a local receiver,
 * events committed at a steady rate (default 1,000 a second, 20 ms apart) the way the service's fan-out writes them.
 *
 *   npm run build && node bench/standby-wait.bench.mjs [--events N (5000)] [--rate EVENTS_PER_S (1000)] [--rounds N (2)]
 *
 * Prints one JSON object: p50/p99 latency in ms for each setting and round, the ratios on/off, and the load average.
 * `npm test` runs it once with a few events (test/benches.e2e.spec.ts).
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PostgresNode } from './failover/postgres-node.mjs';
import { LaggingLink } from './failover/tcp-links.mjs';
import { freePort } from './free-port.mjs';
import { quantile } from './quantiles.mjs';
import { startService } from './service-process.mjs';

const dist = (p) => import(new URL(`../dist/src/${p}`, import.meta.url).href);
const SECRET_KEY = Buffer.alloc(32, 13).toString('base64');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const opts = { events: arg('events', 5000), rate: arg('rate', 1000), rounds: arg('rounds', 2) };

async function startReceiver() {
  const first = new Map();
  const server = createServer((req, res) => {
    const at = performance.now();
    req.resume();
    req.on('end', () => {
      if (!first.has(req.headers['webhook-id'])) first.set(req.headers['webhook-id'], at);
      res.end('ok');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { port: server.address().port, first, close: () => new Promise((r) => server.close(r)) };
}

/** A firm and one endpoint on the receiver, written as the CLI would leave them. */
async function prepare(db, receiverPort) {
  const { SecretBox, newSigningSecret } = await dist('webhooks/secret-box.js');
  const [{ id: orgId }] = await db.sql(`INSERT INTO orgs (slug, display_name) VALUES ('bench', 'Bench Firm') RETURNING id`);
  const id = crypto.randomUUID();
  const secret = newSigningSecret();
  await db.sql(
    `INSERT INTO webhook_endpoints (id, org_id, url, event_types, status, secret_enc, secret_last4, health_since, created_at, updated_at)
     VALUES ($1, $2, $3, '{call.completed}', 'enabled', $4, $5, now(), now(), now())`,
    [
      id,
      orgId,
      `http://127.0.0.1:${receiverPort}/hook`,
      new SecretBox(Buffer.from(SECRET_KEY, 'base64')).seal(secret, id),
      secret.slice(-4),
    ],
  );
  return orgId;
}

/** One round: `events` committed at `rate`, each with its pending delivery and NOTIFY, as the fan-out writes them. */
async function round(url, orgId, receiver, waitForStandby) {
  const { newEventId } = await dist('common/ids.js');
  const worker = await startService('worker', {
    DATABASE_URL: url,
    WEBHOOK_SECRET_KEY: SECRET_KEY,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    EVENTS_WAIT_FOR_STANDBY: String(waitForStandby),
    LOG_LEVEL: 'error',
    BASE_URL: 'http://api.test',
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  receiver.first.clear();
  const commits = new Map();
  const perTick = Math.max(1, Math.round((opts.rate * 20) / 1000));
  const t0 = performance.now();
  for (let tick = 0, made = 0; made < opts.events; tick++, made += perTick) {
    const wait = t0 + tick * 20 - performance.now();
    if (wait > 0) await sleep(wait);
    const now = new Date();
    const ids = Array.from({ length: Math.min(perTick, opts.events - made) }, () => newEventId(now));
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO events (id, org_id, type, test, occurred_at, data) SELECT id, $2, 'call.completed', false, $3, '{}' FROM unnest($1::text[]) AS x(id)`,
      [ids, orgId, now],
    );
    await client.query(
      `WITH d AS (
         INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, created_at, event_occurred_at)
         SELECT gen_random_uuid(), e.org_id, e.id, x.id, 'call.completed', 'event', 'pending', $3, $3, $3 FROM unnest($1::text[]) AS x(id) JOIN webhook_endpoints e ON e.org_id = $2
         RETURNING id, created_at, org_id, endpoint_id, event_id, event_type, event_occurred_at, trigger, next_attempt_at)
       INSERT INTO webhook_pending_deliveries (id, created_at, org_id, endpoint_id, event_id, event_type, event_occurred_at, trigger, next_attempt_at)
       SELECT id, created_at, org_id, endpoint_id, event_id, event_type, event_occurred_at, trigger, next_attempt_at FROM d`,
      [ids, orgId, now],
    );
    await client.query(`SELECT pg_notify('webhook_deliveries', '')`);
    await client.query('COMMIT');
    const at = performance.now();
    for (const id of ids) commits.set(id, at);
  }
  for (const until = Date.now() + 120_000; receiver.first.size < opts.events && Date.now() < until;) await sleep(50);
  await client.end();
  worker.child.kill('SIGTERM');
  await once(worker.child, 'exit');
  const latencies = [...receiver.first].map(([id, at]) => at - commits.get(id)).sort((a, b) => a - b);
  if (latencies.length < opts.events) throw new Error(`only ${latencies.length} of ${opts.events} deliveries arrived`);
  return { p50: Math.round(quantile(latencies, 0.5)), p99: Math.round(quantile(latencies, 0.99)) };
}

const root = mkdtempSync(join(tmpdir(), 'standby-wait-'));
chmodSync(root, 0o755);
const nodes = [];
let link;
const receiver = await startReceiver();
try {
  const primary = await PostgresNode.primary('primary', join(root, 'primary'), await freePort());
  nodes.push(primary);
  const { runMigrations } = await dist('database/migrate.js');
  await runMigrations(primary.url());
  link = await new LaggingLink(primary.port, 0).start();
  nodes.push(await PostgresNode.standby('standby', join(root, 'standby'), await freePort(), primary, link.port));
  await primary.streamsTo('standby');
  const orgId = await prepare(primary, receiver.port);
  const rounds = [];
  const loads = [];
  for (let i = 0; i < opts.rounds; i++) {
    for (const waitForStandby of [false, true]) {
      loads.push(loadavg()[0]);
      rounds.push({ wait_for_standby: waitForStandby, ...(await round(primary.url(), orgId, receiver, waitForStandby)) });
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const of = (on, key) => median(rounds.filter((r) => r.wait_for_standby === on).map((r) => r[key]));
  const result = {
    settings: opts,
    load_average: { median: median(loads), max: Math.max(...loads) },
    rounds,
    latency_ms: { off: { p50: of(false, 'p50'), p99: of(false, 'p99') }, on: { p50: of(true, 'p50'), p99: of(true, 'p99') } },
  };
  result.ratio_on_off = {
    p50: +(result.latency_ms.on.p50 / Math.max(1, result.latency_ms.off.p50)).toFixed(2),
    p99: +(result.latency_ms.on.p99 / Math.max(1, result.latency_ms.off.p99)).toFixed(2),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await receiver.close();
  await link?.close();
  for (const node of nodes.reverse()) await node.stop().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
}
