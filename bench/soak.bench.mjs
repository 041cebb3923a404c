#!/usr/bin/env node
/**
 * Soak: the real service (`node dist/src/main.js`, ROLE=all) under a mix of
 * list, detail, transcript, recording, recording-link, PATCH and ingestion
 * traffic from several keys of several firms, for a few minutes, while its
 * webhooks deliver to a local receiver.
 *
 *   npm run bench:soak
 *
 * Environment (all optional): SOAK_SECONDS (150), SOAK_CONCURRENCY (16 requests
 * in flight), SOAK_FIRMS (3; two keys each), SOAK_SEED (the traffic mix's
 * random choices, printed; default fixed), BENCH_RESULTS_DIR (bench/results), BENCH_DATABASE_URL (a
 * PostgreSQL server; default an embedded one in a temp folder). The service and the receiver on 127.0.0.1.
 *
 * Reports: requests/s, p50/p99 per operation, 5xx, 4xx (every request of the
 * mix is valid, except that two PATCHes of one lead may race: the loser's 409
 * status_conflict is the spec's rule 5, counted apart) and transport errors (all must be 0), every event delivered (events recorded vs
 * distinct webhook-ids received after a bounded drain), and the service's RSS
 * after warm-up and at the end. Exits 1 when a 5xx, a 4xx, an error or an
 * undelivered event was seen. `npm test` runs it once for a few seconds
 * (test/benches.e2e.spec.ts), so it keeps running.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { benchDatabase } from './bench-database.mjs';
import { openCli } from './cli-in-process.mjs';
import { freePort } from './free-port.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (p) => new URL(`../dist/src/${p}`, import.meta.url).href;
const SECONDS = Number(process.env.SOAK_SECONDS ?? 150);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);
const FIRMS = Number(process.env.SOAK_FIRMS ?? 3);
const SEED = Number(process.env.SOAK_SEED ?? 20_261_125);
const RESULTS = process.env.BENCH_RESULTS_DIR ?? join(root, 'bench/results');
const SECRET = Buffer.alloc(32, 13).toString('base64');
const INTERNAL = 'soak-internal-token-0123456789';
const DOC = JSON.parse(readFileSync(join(root, 'bench/soak-call-document.json'), 'utf8'));
const OGG = readFileSync(join(root, 'fixtures/recordings/injury-caller.ogg'));
const log = (line) => process.stderr.write(line + '\n');

/** Mulberry32: the mix's choices come from one seeded stream, so a run's traffic can be replayed (SOAK_SEED). */
function seeded(seed) {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(SEED);

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** The receiver: 200 at once, counting distinct webhook-ids. */
async function startReceiver() {
  const ids = new Set();
  let total = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      total++;
      ids.add(req.headers['webhook-id']);
      res.end('ok');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/hook`, ids, total: () => total, close: () => server.close() };
}

/** A firm with two keys (read, read-update-leads), a webhook endpoint and a few seeded calls with recordings. */
async function seedFirm(i, cli, receiverUrl, api) {
  const { DEMO_SETTINGS } = await import(dist('demo/index.js'));
  const org = await cli.run(['org', 'create', '--name', `Soak firm ${i}`, '--slug', `soak-${i}`]);
  await cli.run(['receptionist', 'publish', '--org', org.id, '--file', '-'], JSON.stringify(DEMO_SETTINGS));
  const keys = [];
  for (const set of ['read', 'read-update-leads'])
    keys.push((await cli.run(['key', 'create', '--org', org.id, '--name', set, '--set', set])).key);
  await cli.run(['endpoint', 'create', '--org', org.id, '--url', receiverUrl, '--types', 'call.completed,lead.created,lead.updated']);
  const firm = { orgId: org.id, keys, calls: [], leads: [], seq: 0 };
  for (let n = 0; n < 20; n++) await ingest(api, firm);
  for (const callId of firm.calls.slice(0, 5)) {
    const r = await api('PUT', `/internal/v1/orgs/${firm.orgId}/calls/${callId}/recording`, {
      internal: true,
      raw: OGG,
      type: 'audio/ogg',
    });
    if (r.status !== 200) throw new Error(`recording upload: ${r.status}`);
  }
  firm.recorded = firm.calls.slice(0, 5);
  return firm;
}

async function ingest(api, firm) {
  const callId = `call_soak_${firm.orgId.slice(0, 8)}_${++firm.seq}`;
  const startedAt = new Date(Date.UTC(2026, 2, 1) + firm.seq * 60_000).toISOString();
  const r = await api('PUT', `/internal/v1/orgs/${firm.orgId}/calls/${callId}`, {
    internal: true,
    body: { ...DOC, started_at: startedAt },
  });
  if (r.status === 201 || r.status === 200) {
    firm.calls.push(callId);
    if (r.body?.lead_id) firm.leads.push(r.body.lead_id);
  }
  return r;
}

/** The traffic mix: [name, weight, send(firm, key)]. */
function operations(api) {
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  return [
    ['list calls', 20, (f, key) => api('GET', '/v1/calls?limit=20', { key })],
    ['call detail', 15, (f, key) => api('GET', `/v1/calls/${pick(f.calls)}`, { key })],
    ['transcript', 12, (f, key) => api('GET', `/v1/calls/${pick(f.calls)}/transcript`, { key })],
    ['recording', 5, (f, key) => api('GET', `/v1/calls/${pick(f.recorded)}/recording`, { key, headers: { range: 'bytes=0-16383' } })],
    [
      'recording link',
      3,
      async (f, key) => {
        const link = await api('POST', `/v1/calls/${pick(f.recorded)}/recording-link`, { key });
        return link.status === 201 ? api('GET', new URL(link.body.url).pathname, {}) : link;
      },
    ],
    ['list leads', 10, (f, key) => api('GET', '/v1/leads?limit=20', { key })],
    ['lead detail', 8, (f, key) => api('GET', `/v1/leads/${pick(f.leads)}`, { key })],
    [
      'PATCH lead',
      7,
      (f) => api('PATCH', `/v1/leads/${pick(f.leads)}`, { key: f.keys[1], body: { status: pick(['contacted', 'signed', 'rejected']) } }),
    ],
    ['events', 5, (f, key) => api('GET', '/v1/events?limit=50', { key })],
    ['ingest call', 15, (f) => ingest(api, f)],
  ];
}

function client(baseUrl) {
  return async (method, path, o = {}) => {
    const headers = { ...(o.headers ?? {}) };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.internal) headers.authorization = `Bearer ${INTERNAL}`;
    let body;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    } else if (o.raw) {
      body = o.raw;
      headers['content-type'] = o.type;
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : null;
    return { status: res.status, body: json };
  };
}

async function soak(api, firms, pid) {
  const ops = operations(api);
  const total = ops.reduce((s, o) => s + o[1], 0);
  const stats = new Map(ops.map(([name]) => [name, { times: [], statuses: {}, errors: 0, conflicts: 0 }]));
  const choose = () => {
    let r = random() * total;
    for (const op of ops) if ((r -= op[1]) < 0) return op;
    return ops[0];
  };
  const rss = [rssMiB(pid)];
  const sampler = setInterval(() => rss.push(rssMiB(pid)), 10_000);
  const endAt = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, w) => {
      while (Date.now() < endAt) {
        const [name, , send] = choose();
        const firm = firms[(w + Math.floor(random() * firms.length)) % firms.length];
        const s = stats.get(name);
        const t0 = performance.now();
        try {
          const r = await send(firm, firm.keys[Math.floor(random() * 2)]);
          s.statuses[r.status] = (s.statuses[r.status] ?? 0) + 1;
          // Rule 5 of PATCH: a change landing between the read and the write of another is a 409, never an overwrite.
          if (name === 'PATCH lead' && r.status === 409 && r.body?.code === 'status_conflict') s.conflicts++;
        } catch (err) {
          s.errors++;
          if (s.errors < 5) log(`${name}: ${err}`);
        }
        s.times.push(performance.now() - t0);
      }
    }),
  );
  clearInterval(sampler);
  rss.push(rssMiB(pid));
  return { stats, rss };
}

async function main() {
  const { runMigrations } = await import(dist('database/migrate.js'));
  const dir = mkdtempSync(join(tmpdir(), 'soak-'));
  const db = await benchDatabase('soak');
  const receiver = await startReceiver();
  let service;
  try {
    await runMigrations(db.databaseUrl);
    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: db.databaseUrl,
      WEBHOOK_SECRET_KEY: SECRET,
      LOG_LEVEL: 'warn',
      DATA_DIR: join(dir, 'data'),
      // The receiver is on loopback: the CLI and the dispatcher must both accept http and private targets.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    mkdirSync(env.DATA_DIR, { recursive: true });
    service = spawn(process.execPath, [join(root, 'dist/src/main.js')], {
      env: { ...env, PORT: String(port), HOST: '127.0.0.1', INTERNAL_API_TOKEN: INTERNAL },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    // As bench/service-process.mjs: a minute, since a loaded machine (a full test run beside it) takes over 20 s.
    const deadline = Date.now() + 60_000;
    while (
      !(await fetch(`${baseUrl}/v1/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error('service did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const api = client(baseUrl);
    log(`soak: seed ${SEED} (replay with SOAK_SEED=${SEED})`);
    log(`seeding ${FIRMS} firms...`);
    // The firms through the CLI's commands, run in this process (bench/cli-in-process.mjs).
    const cli = await openCli(env);
    const firms = await Promise.all(Array.from({ length: FIRMS }, (_, i) => seedFirm(i, cli, receiver.url, api))).finally(() =>
      cli.close(),
    );
    log(`soaking for ${SECONDS} s at ${CONCURRENCY} in flight...`);
    const started = Date.now();
    const { stats, rss } = await soak(api, firms, service.pid);
    const elapsed = (Date.now() - started) / 1000;
    const result = await report(stats, rss, elapsed, db.databaseUrl, receiver);
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(result, null, 2));
    process.exitCode = result.ok ? 0 : 1;
  } finally {
    service?.kill('SIGTERM');
    await new Promise((r) => (service && service.exitCode === null ? service.once('exit', r) : r()));
    receiver.close();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function report(stats, rss, elapsed, databaseUrl, receiver) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const deadline = Date.now() + 60_000;
  let events;
  // Every event recorded must reach the receiver: wait (bounded) for the dispatcher to drain.
  for (;;) {
    events = (await db.query(`SELECT count(*)::int AS n FROM events WHERE type <> 'webhook.test'`)).rows[0].n;
    if (receiver.ids.size >= events || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const failed = (await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'failed'`)).rows[0].n;
  await db.end();
  const operations = {};
  let requests = 0;
  let fiveXx = 0;
  let fourXx = 0;
  let errors = 0;
  let conflicts = 0;
  for (const [name, s] of stats) {
    const sorted = [...s.times].sort((a, b) => a - b);
    requests += sorted.length;
    errors += s.errors;
    conflicts += s.conflicts;
    for (const [status, n] of Object.entries(s.statuses)) {
      if (Number(status) >= 500) fiveXx += n;
      // Every request of the mix is valid: a 4xx is a failure of the service or of the bench, reported either way,
      // except a PATCH that lost a race (409 status_conflict), which the spec prescribes.
      else if (Number(status) >= 400) fourXx += Number(status) === 409 && name === 'PATCH lead' ? n - s.conflicts : n;
    }
    operations[name] = {
      count: sorted.length,
      per_s: +(sorted.length / elapsed).toFixed(1),
      // A short run may never pick a rare operation: it has no latencies then.
      p50_ms: sorted.length ? +quantile(sorted, 0.5).toFixed(1) : null,
      p99_ms: sorted.length ? +quantile(sorted, 0.99).toFixed(1) : null,
      statuses: s.statuses,
      conflicts_409: s.conflicts,
      errors: s.errors,
    };
  }
  const result = {
    seconds: +elapsed.toFixed(1),
    concurrency: CONCURRENCY,
    firms: FIRMS,
    requests,
    requests_per_s: +(requests / elapsed).toFixed(1),
    five_xx: fiveXx,
    four_xx: fourXx,
    patch_conflicts_409: conflicts,
    errors,
    events_recorded: events,
    events_delivered: receiver.ids.size,
    webhook_posts: receiver.total(),
    deliveries_failed: failed,
    // Sampled every 10 s: judge growth from 30 s in (after JIT and pool warm-up) to the end, against the spread of the samples.
    rss_mib: {
      after_seed: +rss[0].toFixed(1),
      after_30s: +rss[Math.min(3, rss.length - 1)].toFixed(1),
      min_after_30s: +Math.min(...rss.slice(3)).toFixed(1),
      end: +rss.at(-1).toFixed(1),
      max: +Math.max(...rss).toFixed(1),
      samples: rss.map((x) => +x.toFixed(1)),
    },
    operations,
    machine: { cpus: cpus().length, loadavg: loadavg().map((x) => +x.toFixed(2)), node: process.version },
  };
  result.ok = fiveXx === 0 && fourXx === 0 && errors === 0 && receiver.ids.size >= events && failed === 0;
  console.log(JSON.stringify({ ...result, rss_mib: { ...result.rss_mib, samples: undefined } }, null, 2));
  return result;
}

await main();
