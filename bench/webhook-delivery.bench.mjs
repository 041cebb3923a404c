// Webhook delivery benchmark: `npm run bench:webhooks` (builds first).
//
// 10,000 events, each fanned out to 2 endpoints on a local receiver, through
// the real worker process (`node dist/src/main.js`, ROLE=worker) with one and
// with two worker processes; beside it, in the same run and against the same
// PostgreSQL, graphile-worker running one job per delivery that makes the
// same signed POST (the baseline).
//
// The ceiling (always run, once, in the same run): the HTTP-only scenario. A
// child process signs and POSTs the same 20,000 envelopes to the same
// receiver with the dispatcher's own signing code and sender (WebhookSender:
// the same undici agent and settings) at the dispatcher's default concurrency
// (64), with no database at all. ours-1 / ceiling says how close the
// dispatcher comes to the wire.
//
// Two phases per system, each on a fresh database:
//   burst  - all 10,000 events committed first (100 per transaction, no
//            worker running), then the workers start and drain the backlog;
//            the sustained rate is deliveries/s between the 10% and 90%
//            arrivals (worker start-up excluded), drain_s includes start-up.
//   paced  - the same number of events committed at a steady rate (default
//            500 events/s = 1,000 deliveries/s), 20 ms apart; latency is the
//            time from COMMIT returning to the first POST arriving, p50/p99.
//
// Options: --events N (10000)  --rate EVENTS_PER_S (500)  --only ours-1,ours-2,graphile-1,graphile-2  --phases burst,paced
//          --history-days N (0)  --history-per-day N (2000): before each scenario, N past days of events, each with its
//          finished deliveries to both endpoints, in their day partitions, as a deployment keeps 30 days of them
//          (the dispatcher must not pay for the days it does not touch)
// Environment: BENCH_CPU_PROF=DIR writes a V8 CPU profile of each worker process of ours-N there;
// BENCH_SIGNATURE=v1a gives both endpoints ed25519 key pairs (Standard Webhooks v1a) instead of whsec_ secrets, in
// every scenario alike (trees before issue 42 have only v1);
// BENCH_PG_STATEMENTS=1 prints PostgreSQL's statements per 1,000 deliveries for each scenario and phase
// (pg_stat_statements, counted from the moment the workers start: the burst's preloaded fan-out is not in it);
// BENCH_RESULTS_DIR (bench/results) is where the results file goes.
// Results: printed, and written to BENCH_RESULTS_DIR/webhooks-<time>.json.
// `npm test` runs it once with a few events (test/benches.e2e.spec.ts), so it keeps running.
import { fork, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, chmodSync, rmSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { freePort } from './free-port.mjs';
import { quantile } from './quantiles.mjs';
import { resetStatements, serverFlags, statementsSince, statementsTable } from './pg-statements.mjs';

const root = new URL('..', import.meta.url);
const dist = (p) => new URL(`dist/src/${p}`, root).href;
const SECRET_KEY = Buffer.alloc(32, 11).toString('base64');
const ENDPOINT_TYPES = ['call.completed'];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const opts = {
    events: 10_000,
    rate: 500,
    only: ['ours-1', 'ours-2', 'graphile-1', 'graphile-2'],
    phases: ['burst', 'paced'],
    historyDays: 0,
    historyPerDay: 2_000,
  };
  for (let i = 0; i < argv.length; i++) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === '--events') opts.events = Number(v);
    else if (k === '--rate') opts.rate = Number(v);
    else if (k === '--only') opts.only = v.split(',');
    else if (k === '--phases') opts.phases = v.split(',');
    else if (k === '--history-days') opts.historyDays = Number(v);
    else if (k === '--history-per-day') opts.historyPerDay = Number(v);
    else throw new Error(`unknown option ${k}`);
    i++;
  }
  return opts;
}

/** CPU milliseconds (user + system) a process has used, from /proc; 0 where /proc is not there or it is gone. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in USER_HZ (100 on Linux)
  } catch {
    return 0;
  }
}

/** CPU milliseconds of this run's PostgreSQL: its postmaster and the live processes it started (other PostgreSQL servers on the machine are not counted). */
function postgresCpuMs(pgDir) {
  let postmaster;
  try {
    postmaster = readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0].trim();
  } catch {
    return 0;
  }
  let total = cpuMs(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1] === postmaster) total += cpuMs(entry);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

const benchCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The local receiver: answers 200 at once, remembers the first arrival of each (endpoint, webhook-id). */
async function startReceiver() {
  const first = new Map();
  let total = 0;
  let waiter = null;
  const server = createServer((req, res) => {
    const at = performance.now();
    const key = `${req.url}|${req.headers['webhook-id']}`;
    req.resume();
    req.on('end', () => {
      total++;
      if (!first.has(key)) first.set(key, at);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      if (waiter && first.size >= waiter.n) {
        waiter.resolve();
        waiter = null;
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: server.address().port,
    first,
    get total() {
      return total;
    },
    reset() {
      first.clear();
      total = 0;
    },
    until(n, timeoutMs) {
      if (first.size >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${first.size} of ${n} deliveries in ${timeoutMs} ms`)), timeoutMs);
        waiter = { n, resolve: () => (clearTimeout(timer), resolve()) };
      });
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

/** A fresh, migrated database with one firm and two endpoints on the receiver. */
/**
 * `days` past days of events (`perDay` a day) with one succeeded delivery to each endpoint, in their day partitions
 * (made as the retention job makes them), so a scenario runs against a month of history instead of empty tables.
 */
async function seedHistory(db, orgId, days, perDay, eventTime) {
  const { TimePartitions, pgTransactions, utcDay } = await import(dist('common/retention/time-partitions.js'));
  const tp = new TimePartitions(pgTransactions(db));
  const today = utcDay(new Date());
  for (let k = days; k >= 1; k--) {
    const day = new Date(today.getTime() - k * 86_400_000);
    for (const table of ['events', 'webhook_deliveries']) await tp.ensureDay(table, day);
    await db.query(
      `WITH ev AS (
         INSERT INTO events (id, org_id, type, test, occurred_at, data)
         SELECT 'evt_h' || $3::int || '_' || g, $1, 'call.completed', false, $2::timestamptz + g * interval '1 second', '{"call_id":"call_x"}'::json
           FROM generate_series(1, $4::int) g
         RETURNING id, occurred_at)
       INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, attempt_count, completed_at, created_at${eventTime ? ', event_occurred_at' : ''})
       SELECT gen_random_uuid(), e.org_id, e.id, ev.id, 'call.completed', 'event', 'succeeded', 1, ev.occurred_at, ev.occurred_at${eventTime ? ', ev.occurred_at' : ''}
         FROM ev JOIN webhook_endpoints e ON e.org_id = $1`,
      [orgId, day, k, perDay],
    );
  }
  await db.query('ANALYZE events');
  await db.query('ANALYZE webhook_deliveries');
}

async function prepareDatabase(adminUrl, name, receiverPort, history) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const { runMigrations } = await import(dist('database/migrate.js'));
  await runMigrations(url.toString());
  const { SecretBox, newSigningSecret, newSigningMaterial } = await import(dist('webhooks/secret-box.js'));
  const box = new SecretBox(Buffer.from(SECRET_KEY, 'base64'));
  const v1a = process.env.BENCH_SIGNATURE === 'v1a';
  if (v1a && !newSigningMaterial) throw new Error('BENCH_SIGNATURE=v1a: this tree signs v1 only');
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  const [{ id: orgId }] = (await db.query(`INSERT INTO orgs (slug, display_name) VALUES ('bench', 'Bench Firm') RETURNING id`)).rows;
  const endpoints = [];
  for (const path of ['/a', '/b']) {
    const id = crypto.randomUUID();
    const signing = v1a ? newSigningMaterial('v1a') : null;
    const secret = signing ? signing.secret : newSigningSecret();
    await db.query(
      `INSERT INTO webhook_endpoints (id, org_id, url, event_types, status, secret_enc, secret_last4, health_since, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'enabled', $5, $6, now(), now(), now())`,
      [
        id,
        orgId,
        `http://127.0.0.1:${receiverPort}${path}`,
        ENDPOINT_TYPES,
        box.seal(secret, id),
        signing ? signing.last4 : secret.slice(-4),
      ],
    );
    if (signing) await db.query(`UPDATE webhook_endpoints SET signature = 'v1a', public_key = $2 WHERE id = $1`, [id, signing.publicKey]);
    endpoints.push({ id, secret, url: `http://127.0.0.1:${receiverPort}${path}` });
  }
  // Whether deliveries keep their event's time (migration 1764150000000): the bench also runs against trees before it.
  const eventTime = (
    await db.query(
      `SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'webhook_deliveries' AND column_name = 'event_occurred_at') AS e`,
    )
  ).rows[0].e;
  // Whether pending deliveries are queued in a table of their own (migration 1764330000000).
  const queue = (await db.query(`SELECT to_regclass('webhook_pending_deliveries') IS NOT NULL AS q`)).rows[0].q;
  if (history.days > 0) await seedHistory(db, orgId, history.days, history.perDay, eventTime);
  await db.end();
  return { url: url.toString(), orgId, endpoints, eventTime, queue };
}

/**
 * Commits events the way the service does: event rows, then in the same
 * transaction the fan-out (ours: a pending delivery per subscribed endpoint +
 * NOTIFY; baseline: a graphile-worker job per delivery via add_job).
 */
function makeProducer(client, orgId, system, eventTime, queue) {
  const { newEventId } = globalThis.__ids;
  return async (count) => {
    const now = new Date();
    const ids = Array.from({ length: count }, () => newEventId(now));
    const datas = ids.map((_, i) =>
      JSON.stringify({
        call_id: `call_${ids[i].slice(4)}`,
        answered: true,
        duration_s: 42,
        url: `http://api.test/v1/calls/call_${ids[i].slice(4)}`,
      }),
    );
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO events (id, org_id, type, test, occurred_at, data) SELECT id, $2, 'call.completed', false, $3, data::json FROM unnest($1::text[], $4::text[]) AS x(id, data)`,
      [ids, orgId, now, datas],
    );
    if (system === 'ours' && queue) {
      // The fan-out's statement (WebhookDeliveriesRepository.fanOut) for many events: the log's rows and the queue's.
      await client.query(
        `WITH d AS (
           INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, created_at, event_occurred_at)
           SELECT gen_random_uuid(), e.org_id, e.id, x.id, 'call.completed', 'event', 'pending', $3, $3, $3
             FROM unnest($1::text[]) AS x(id) JOIN webhook_endpoints e ON e.org_id = $2 AND e.status = 'enabled' AND 'call.completed' = ANY(e.event_types)
           RETURNING id, created_at, org_id, endpoint_id, event_id, event_type, event_occurred_at, trigger, next_attempt_at)
         INSERT INTO webhook_pending_deliveries (id, created_at, org_id, endpoint_id, event_id, event_type, event_occurred_at, trigger, next_attempt_at)
         SELECT id, created_at, org_id, endpoint_id, event_id, event_type, event_occurred_at, trigger, next_attempt_at FROM d`,
        [ids, orgId, now],
      );
      await client.query(`SELECT pg_notify('webhook_deliveries', '')`);
    } else if (system === 'ours') {
      await client.query(
        `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, created_at${eventTime ? ', event_occurred_at' : ''})
         SELECT gen_random_uuid(), e.org_id, e.id, x.id, 'call.completed', 'event', 'pending', $3, $3${eventTime ? ', $3' : ''}
           FROM unnest($1::text[]) AS x(id) JOIN webhook_endpoints e ON e.org_id = $2 AND e.status = 'enabled' AND 'call.completed' = ANY(e.event_types)`,
        [ids, orgId, now],
      );
      await client.query(`SELECT pg_notify('webhook_deliveries', '')`);
    } else {
      // One batched add_jobs call per transaction: the counterpart of the multi-row delivery INSERT.
      await client.query(
        `SELECT count(*) FROM graphile_worker.add_jobs((
           SELECT array_agg(ROW('deliver', json_build_object('event_id', x.id, 'occurred_at', $3::timestamptz, 'endpoint_id', e.id), NULL, NULL, NULL, NULL, NULL, NULL)::graphile_worker.job_spec)
             FROM unnest($1::text[]) AS x(id) JOIN webhook_endpoints e ON e.org_id = $2 AND e.status = 'enabled'))`,
        [ids, orgId, now],
      );
    }
    await client.query('COMMIT');
    const committed = performance.now();
    return ids.map((id) => [id, committed]);
  };
}

function startOurWorker(databaseUrl) {
  // BENCH_CPU_PROF=DIR: each worker writes a V8 CPU profile there when it exits.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, fileURLToPath(new URL('dist/src/main.js', root))], {
    env: {
      PATH: process.env.PATH,
      ROLE: 'worker',
      DATABASE_URL: databaseUrl,
      WEBHOOK_SECRET_KEY: SECRET_KEY,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'error',
      BASE_URL: 'http://api.test',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { child, stop: () => stopChild(child) };
}

function startGraphileWorker(databaseUrl, endpoints) {
  const child = fork(fileURLToPath(import.meta.url), ['--graphile-worker'], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, ENDPOINTS: JSON.stringify(endpoints) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = new Promise((resolve, reject) => {
    child.once('message', (m) => (m === 'ready' ? resolve() : reject(new Error(String(m)))));
    child.once('exit', (code) => reject(new Error(`graphile worker exited ${code}`)));
  });
  return { child, ready, stop: () => stopChild(child) };
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => (clearTimeout(timer), resolve()));
    child.kill('SIGTERM');
  });
}

async function waitForListeners(databaseUrl, n) {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    // A bound for a hang: a worker took over 30 s to start on a machine at load 19.
    for (const deadline = Date.now() + 180_000; Date.now() < deadline;) {
      const { rows } = await c.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'webhook-dispatcher' AND datname = current_database()`,
      );
      if (rows[0].n >= n) return;
      await sleep(100);
    }
    throw new Error('workers did not start within 180 s');
  } finally {
    await c.end();
  }
}

async function runScenario({ name, system, workers, adminUrl, pgDir, receiver, events, rate, phaseList, history }) {
  const phases = {};
  for (const phase of phaseList) {
    const dbName = `bench_${name.replace(/-/g, '_')}_${phase}`;
    const setup = await prepareDatabase(adminUrl, dbName, receiver.port, history);
    if (system === 'graphile') {
      const { runMigrations } = await import('graphile-worker');
      await runMigrations({ connectionString: setup.url, logger: silentLogger() });
    }
    const procs = [];
    // Stopped however the phase ends: a worker left running would outlive the bench (and hold its stderr open).
    try {
      // CPU used from the moment the workers are ready (start-up excluded) to the last delivery recorded.
      const cpu = () => ({
        workers: procs.reduce((sum, p) => sum + cpuMs(p.child.pid), 0),
        postgres: postgresCpuMs(pgDir),
        bench: benchCpuMs(),
      });
      let cpuAtStart;
      const startWorkers = async () => {
        await resetStatements(client);
        for (let i = 0; i < workers; i++)
          procs.push(system === 'ours' ? startOurWorker(setup.url) : startGraphileWorker(setup.url, setup.endpoints));
        if (system === 'ours') await waitForListeners(setup.url, workers);
        else await Promise.all(procs.map((p) => p.ready));
        cpuAtStart = cpu();
      };
      receiver.reset();
      const client = new pg.Client({ connectionString: setup.url });
      await client.connect();
      const produce = makeProducer(client, setup.orgId, system, setup.eventTime, setup.queue);
      const commits = new Map();
      const expected = events * setup.endpoints.length;
      let t0;
      if (phase === 'burst') {
        // Preload the whole backlog, then let the workers drain it.
        for (let done = 0; done < events; done += 100)
          for (const [id, at] of await produce(Math.min(100, events - done))) commits.set(id, at);
        t0 = performance.now();
        await startWorkers();
      } else {
        await startWorkers();
        t0 = performance.now();
        const perTick = Math.max(1, Math.round((rate * 20) / 1000));
        let produced = 0;
        for (let tick = 0; produced < events; tick++) {
          const due = t0 + tick * 20;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
          const n = Math.min(perTick, events - produced);
          for (const [id, at] of await produce(n)) commits.set(id, at);
          produced += n;
        }
      }
      const producedAt = performance.now();
      await receiver.until(expected, 300_000);
      const t1 = performance.now();
      const arrivals = [...receiver.first.values()].sort((a, b) => a - b);
      const latencies = [];
      for (const [key, at] of receiver.first) latencies.push(at - commits.get(key.split('|')[1]));
      latencies.sort((a, b) => a - b);
      const a10 = arrivals[Math.floor(arrivals.length * 0.1)];
      const a90 = arrivals[Math.floor(arrivals.length * 0.9)];
      let recorded = null;
      if (system === 'ours') {
        // Everything the receiver saw must also be recorded as succeeded.
        for (let i = 0; i < 200; i++) {
          const { rows } = await client.query(
            // This phase's deliveries only: the history's (events evt_h...) were finished before it began.
            `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS ok, count(*)::int AS n FROM webhook_deliveries WHERE event_id NOT LIKE 'evt_h%'`,
          );
          recorded = rows[0];
          if (recorded.ok === expected) break;
          await sleep(50);
        }
      }
      const cpuAtEnd = cpu();
      const statements = await statementsSince(client, expected, { per: 1000 });
      await client.end();
      const perThousand = (key) => Math.round(((cpuAtEnd[key] - cpuAtStart[key]) * 1000) / expected);
      phases[phase] = {
        deliveries: expected,
        duplicates: receiver.total - expected,
        ...(phase === 'paced' ? { produce_s: +((producedAt - t0) / 1000).toFixed(2) } : {}),
        [phase === 'burst' ? 'drain_s' : 'total_s']: +((t1 - t0) / 1000).toFixed(2),
        sustained_per_s: Math.round((0.8 * arrivals.length) / ((a90 - a10) / 1000)),
        overall_per_s: Math.round(expected / ((t1 - t0) / 1000)),
        ...(phase === 'paced'
          ? {
              latency_ms: {
                p50: Math.round(quantile(latencies, 0.5)),
                p99: Math.round(quantile(latencies, 0.99)),
                max: Math.round(latencies[latencies.length - 1]),
              },
            }
          : {}),
        ...(recorded ? { recorded_succeeded: recorded.ok } : {}),
        // bench: this process, i.e. the receiver (and in the paced phase the producer).
        cpu_ms_per_1000: { workers: perThousand('workers'), postgres: perThousand('postgres'), bench: perThousand('bench') },
        ...(statements ? { statements_per_1000: statements } : {}),
      };
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
    }
    const { statements_per_1000: _, ...shown } = phases[phase];
    process.stderr.write(`  ${name} ${phase}: ${JSON.stringify(shown)}\n`);
    process.stderr.write(
      statementsTable(`  ${name} ${phase}, PostgreSQL statements per 1,000 deliveries:`, phases[phase].statements_per_1000 ?? null),
    );
  }
  return { name, system, workers, ...phases };
}

function silentLogger() {
  return globalThis.__graphileLogger;
}

/** The baseline worker process: graphile-worker, one job per delivery, the same signed POST. */
async function graphileWorkerMain() {
  const { run, Logger } = await import('graphile-worker');
  const { Agent, request } = await import('undici');
  const { signingKey, keyOfSecret = signingKey, webhookHeaders } = await import(dist('webhooks/signing.js'));
  const endpoints = new Map(JSON.parse(process.env.ENDPOINTS).map((e) => [e.id, { url: e.url, key: keyOfSecret(e.secret) }]));
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const agent = new Agent({ headersTimeout: 10_000, bodyTimeout: 10_000, keepAliveTimeout: 4_000 });
  const runner = await run({
    connectionString: process.env.DATABASE_URL,
    concurrency: 64,
    pollInterval: 1000,
    noHandleSignals: true,
    logger: new Logger(() => () => undefined),
    taskList: {
      async deliver(payload) {
        // By id and partition key, as our dispatcher reads it: events are partitioned by day on occurred_at.
        const { rows } = await pool.query(
          `SELECT id, type, occurred_at, org_id, test, data FROM events WHERE id = $1 AND occurred_at = $2`,
          [payload.event_id, payload.occurred_at],
        );
        const e = rows[0];
        const body = JSON.stringify({
          id: e.id,
          type: e.type,
          timestamp: e.occurred_at.toISOString(),
          org: { id: e.org_id },
          test: e.test,
          data: e.data,
        });
        const ep = endpoints.get(payload.endpoint_id);
        const res = await request(ep.url, {
          dispatcher: agent,
          method: 'POST',
          headers: webhookHeaders(ep.key, e.id, new Date(), body),
          body,
          signal: AbortSignal.timeout(10_000),
        });
        res.body.resume();
        if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}`);
      },
    },
  });
  process.on(
    'SIGTERM',
    () =>
      void runner
        .stop()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
  process.send('ready');
  await runner.promise;
}

/**
 * The ceiling: the same signed POSTs to the same receiver with no database. The
 * dispatcher's signing (webhookHeaders) and sender (WebhookSender, its undici
 * agent) at its default concurrency; the arrivals give the sustained rate the
 * same way as for the workers (10% to 90%).
 */
async function runCeiling({ receiver, events }) {
  const { newSigningSecret } = await import(dist('webhooks/secret-box.js'));
  const endpoints = ['/a', '/b'].map((path) => ({ url: `http://127.0.0.1:${receiver.port}${path}`, secret: newSigningSecret() }));
  receiver.reset();
  const expected = events * endpoints.length;
  const t0 = performance.now();
  const benchAtStart = benchCpuMs();
  const child = fork(fileURLToPath(import.meta.url), ['--ceiling'], {
    env: { PATH: process.env.PATH, ENDPOINTS: JSON.stringify(endpoints), EVENTS: String(events), CONCURRENCY: '64' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let cpuMsUsed = 0;
  child.on('message', (m) => (cpuMsUsed = m.cpuMs));
  const exited = new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ceiling process exited ${code}`)))),
  );
  await Promise.race([receiver.until(expected, 300_000), exited]);
  await receiver.until(expected, 1_000);
  const t1 = performance.now();
  const benchUsed = benchCpuMs() - benchAtStart;
  await exited;
  const arrivals = [...receiver.first.values()].sort((a, b) => a - b);
  const a10 = arrivals[Math.floor(arrivals.length * 0.1)];
  const a90 = arrivals[Math.floor(arrivals.length * 0.9)];
  const burst = {
    deliveries: expected,
    duplicates: receiver.total - expected,
    drain_s: +((t1 - t0) / 1000).toFixed(2),
    sustained_per_s: Math.round((0.8 * arrivals.length) / ((a90 - a10) / 1000)),
    overall_per_s: Math.round(expected / ((t1 - t0) / 1000)),
    cpu_ms_per_1000: { workers: Math.round((cpuMsUsed * 1000) / expected), postgres: 0, bench: Math.round((benchUsed * 1000) / expected) },
  };
  process.stderr.write(`  ceiling burst: ${JSON.stringify(burst)}\n`);
  return { name: 'ceiling', system: 'http-only', workers: 1, burst };
}

/** The ceiling's process: envelopes built in memory, signed and POSTed as the dispatcher does, no database. */
async function ceilingMain() {
  const { signingKey, keyOfSecret = signingKey, webhookHeaders } = await import(dist('webhooks/signing.js'));
  const { WebhookSender } = await import(dist('webhooks/webhook-sender.js'));
  const { newEventId } = await import(dist('common/ids.js'));
  const endpoints = JSON.parse(process.env.ENDPOINTS).map((e) => ({ url: e.url, keys: [keyOfSecret(e.secret)] }));
  const sender = new WebhookSender({ allowPrivateTargets: true });
  const orgId = crypto.randomUUID();
  const deliveries = [];
  for (let i = 0; i < Number(process.env.EVENTS); i++) {
    const now = new Date();
    const id = newEventId(now);
    const data = { call_id: `call_${id.slice(4)}`, answered: true, duration_s: 42, url: `http://api.test/v1/calls/call_${id.slice(4)}` };
    const envelope = { id, type: 'call.completed', timestamp: now.toISOString(), org: { id: orgId }, test: false, data };
    for (const endpoint of endpoints) deliveries.push({ envelope, endpoint });
  }
  let next = 0;
  const cpuAtStart = process.cpuUsage();
  const loop = async () => {
    while (next < deliveries.length) {
      const { envelope, endpoint } = deliveries[next++];
      const body = JSON.stringify(envelope);
      const result = await sender.post(endpoint.url, webhookHeaders(endpoint.keys, envelope.id, new Date(), body), body);
      if (result.statusCode !== 200) throw new Error(`ceiling POST answered ${result.statusCode ?? result.error}`);
    }
  };
  await Promise.all(Array.from({ length: Number(process.env.CONCURRENCY) }, loop));
  await sender.close();
  const { user, system } = process.cpuUsage(cpuAtStart);
  await new Promise((resolve) => process.send({ cpuMs: (user + system) / 1000 }, resolve));
}

/** The burst rates' ratios within this run (the figures the targets are set on), for the scenarios that ran. */
function sameRunRatios(results, ceiling) {
  const burstOf = (name) => (name === 'ceiling' ? ceiling : results.find((r) => r.name === name))?.burst;
  const burst = (name) => burstOf(name)?.sustained_per_s;
  const cpuOf = (name) => burstOf(name)?.cpu_ms_per_1000;
  const ratio = (a, b) => (burst(a) && burst(b) ? +(burst(a) / burst(b)).toFixed(2) : null);
  // Deliveries per CPU-second of the whole path (sender, PostgreSQL, receiver): robust where the machine is shared.
  const cpu = (name) => {
    const c = cpuOf(name);
    return c ? c.workers + c.postgres + c.bench : null;
  };
  const cpuRatio = (a, b) => (cpu(a) && cpu(b) ? +(cpu(b) / cpu(a)).toFixed(2) : null);
  // The worker's own CPU per delivery against the ceiling sender's (the same signing and sending code, in the same
  // run): what claiming and recording add to a send, the figure the dispatcher's changes are judged on.
  const senderCpu = (name) => cpuOf(name)?.workers;
  const overCeilingSender = senderCpu('ours-1') && senderCpu('ceiling') ? +(senderCpu('ours-1') / senderCpu('ceiling')).toFixed(2) : null;
  return {
    "ours-1 worker CPU per delivery, times the ceiling sender's": overCeilingSender,
    'ours-1 / graphile-1 (CPU per delivery)': cpuRatio('ours-1', 'graphile-1'),
    'ours-1 / ceiling (CPU per delivery)': cpuRatio('ours-1', 'ceiling'),
    'ours-1 / graphile-1': ratio('ours-1', 'graphile-1'),
    'ours-1 / ceiling': ratio('ours-1', 'ceiling'),
    'ours-2 / ours-1': ratio('ours-2', 'ours-1'),
    'ours-2 / graphile-2': ratio('ours-2', 'graphile-2'),
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  globalThis.__ids = await import(dist('common/ids.js'));
  const { Logger } = await import('graphile-worker');
  globalThis.__graphileLogger = new Logger(() => () => undefined);
  const { startEmbeddedPostgres } = await import(dist('database/embedded-postgres.js'));
  const dir = mkdtempSync(join(tmpdir(), 'webhook-bench-'));
  chmodSync(dir, 0o777);
  const pgServer = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), database: 'postgres', flags: serverFlags() });
  const receiver = await startReceiver();
  const scenarios = {
    'ours-1': { system: 'ours', workers: 1 },
    'ours-2': { system: 'ours', workers: 2 },
    'graphile-1': { system: 'graphile', workers: 1 },
    'graphile-2': { system: 'graphile', workers: 2 },
  };
  const results = [];
  let ceiling;
  try {
    process.stderr.write(
      `webhook delivery bench: ${opts.events} events x 2 endpoints, paced at ${opts.rate} events/s, ${opts.historyDays} days of history (${opts.historyPerDay} events a day); ${cpus().length} CPUs, Node ${process.version}, load average ${loadavg()[0].toFixed(2)}\n`,
    );
    const ceilingLoad = +loadavg()[0].toFixed(2);
    ceiling = { ...(await runCeiling({ receiver, events: opts.events })), load_before: ceilingLoad };
    for (const name of opts.only) {
      if (!scenarios[name]) throw new Error(`unknown scenario ${name}`);
      const load_before = +loadavg()[0].toFixed(2);
      results.push({
        ...(await runScenario({
          name,
          ...scenarios[name],
          adminUrl: pgServer.url,
          pgDir: join(dir, 'pg'),
          receiver,
          events: opts.events,
          rate: opts.rate,
          phaseList: opts.phases,
          history: { days: opts.historyDays, perDay: opts.historyPerDay },
        })),
        load_before,
      });
    }
  } finally {
    await receiver.close();
    await pgServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = [...results, ceiling].map((r) => ({
    scenario: r.name,
    'burst deliveries/s (sustained)': r.burst?.sustained_per_s,
    'burst drain s': r.burst?.drain_s,
    'paced deliveries/s': r.paced?.sustained_per_s,
    'paced p50 ms': r.paced?.latency_ms.p50,
    'paced p99 ms': r.paced?.latency_ms.p99,
    'burst worker CPU ms/1000': r.burst?.cpu_ms_per_1000.workers,
    'burst PG CPU ms/1000': r.burst?.cpu_ms_per_1000.postgres,
    'burst receiver CPU ms/1000': r.burst?.cpu_ms_per_1000.bench,
    duplicates: (r.burst?.duplicates ?? 0) + (r.paced?.duplicates ?? 0),
    'load avg': r.load_before,
  }));
  console.table(rows);
  const ratios = sameRunRatios(results, ceiling);
  console.table(ratios);
  const outDir = process.env.BENCH_RESULTS_DIR ? pathToFileURL(`${process.env.BENCH_RESULTS_DIR}/`) : new URL('bench/results/', root);
  mkdirSync(outDir, { recursive: true });
  const file = new URL(`webhooks-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, outDir);
  writeFileSync(file, JSON.stringify({ options: opts, cpus: cpus().length, node: process.version, results, ceiling, ratios }, null, 2));
  process.stderr.write(`written ${fileURLToPath(file)}\n`);
}

if (process.argv[2] === '--ceiling') {
  ceilingMain().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`ceiling failed: ${err.stack}\n`);
      process.exit(1);
    },
  );
} else if (process.argv[2] === '--graphile-worker') {
  graphileWorkerMain().catch((err) => {
    process.stderr.write(`graphile worker failed: ${err.stack}\n`);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    process.stderr.write(`bench failed: ${err.stack ?? err}\n`);
    process.exit(1);
  });
}
