#!/usr/bin/env node
// Growth benchmark: `npm run bench:growth` (builds first).
//
// What a request costs as the data grows ten times, in one run: two databases on one PostgreSQL, seeded in SQL
// (bench/growth-seed.mjs: rows shaped as the service writes them, copied from a template firm the service ingested):
//   1x  - the calls bench's size: 1,000 firms, 200,000 calls all in one large firm, their leads, 30 days of events,
//         webhook deliveries and owner mail, and a month of audit rows at one list poll a minute for 10 firms;
//   10x - the same seeding, then grown: 10,000 firms, 2,000,000 calls (the large firm still holds 200,000, the rest
//         spread over the other firms), and a month of audit rows for 100 firms (about 4.3 million).
// Each database gets its own api process (`node dist/src/main.js`, ROLE=api). Measured over HTTP against the large
// firm, one request at a time, in rounds alternating 1x and 10x (order swapped each round) so both see the same
// machine: p50/p99 of the calls list (first page, and the page after 1,000 pages of 100), call detail, leads list,
// and PATCH of a lead, with 10x against 1x (target: within 1.2x). Then disk per million calls (pg_total_relation_size),
// and the time to drop one whole day of each retained table (events, webhook_deliveries, mail_outbox, audit_log; target
// under 1 s): at 10x the oldest --drop-days days are dropped one table after another while three reader loops (calls
// first page, call detail, leads list) run without pause; reads overlapping a drop against reads just before one.
// Seeding drops the big tables' secondary indexes and builds them again after the load (bench/growth-indexes.mjs), and
// prints each phase's seconds.
//
// Options: --firms N (10000)  --calls N (2000000)  --large N (200000, calls of the large firm; at most calls/10)
//          --audit-firms N (100)  --days N (30, of events, deliveries, mail and audit)  --requests N (600 per scenario
//          and size)  --explain (print EXPLAIN (ANALYZE, BUFFERS) of the list reads and the
//          call detail at both sizes, and time the detail's two statements alone: bench/growth-statements.mjs)
//          --template-calls N (220, demo calls the template firm is ingested with)
//          --drop-days N (10, days dropped at 10x under reads)  --drop-gap-ms N (1000, readers alone before each drop)
//          --tiny (30 firms, 6,000 calls, 600 in the large firm, 1 audit firm, 3 days, 10 requests, 40 template calls,
//          2 days dropped 100 ms apart: seconds)
// Environment: BENCH_DATABASE_URL (a PostgreSQL server to use; default: an embedded one in a temp folder);
// BENCH_RESULTS_DIR (bench/results) is where the results file goes.
// Results: a readable table and one JSON line on stdout, and BENCH_RESULTS_DIR/growth-<time>.json.
// `npm test` runs it once with --tiny (test/benches.e2e.spec.ts), so it keeps running.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { benchDatabase, createDatabase } from './bench-database.mjs';
import { openSeedSession, prepareDatabase, seedAudit, seedCalls, seedFirms, seedMail } from './growth-seed.mjs';
import { dropOneDay, ensureDayPartitions, oldestWholeDays } from './growth-retention.mjs';
import { buildIndexes, dropSecondaryIndexes } from './growth-indexes.mjs';
import { startApi } from './service-process.mjs';
import { detailStatements } from './growth-statements.mjs';
import { latencyStats } from './quantiles.mjs';
import { pgQueryable } from './pg-queryable.mjs';

const require = createRequire(import.meta.url);
const root = new URL('..', import.meta.url);
const dist = (p) => fileURLToPath(new URL(`../dist/src/${p}`, import.meta.url));
const SECRET = Buffer.alloc(32, 9).toString('base64');
const DEEP_PAGES = 1000;
const log = (line) => process.stderr.write(line + '\n');

function parseArgs(argv) {
  const o = {
    firms: 10_000,
    calls: 2_000_000,
    large: 200_000,
    auditFirms: 100,
    days: 30,
    requests: 600,
    templateCalls: 220,
    dropDays: 10,
    dropGapMs: 1000,
    explain: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === '--tiny')
      Object.assign(o, {
        firms: 30,
        calls: 6_000,
        large: 600,
        auditFirms: 1,
        days: 3,
        requests: 10,
        templateCalls: 40,
        dropDays: 2,
        dropGapMs: 100,
      });
    else if (k === '--explain') o.explain = true;
    else if (k === '--firms') o.firms = Number(v);
    else if (k === '--calls') o.calls = Number(v);
    else if (k === '--large') o.large = Number(v);
    else if (k === '--audit-firms') o.auditFirms = Number(v);
    else if (k === '--days') o.days = Number(v);
    else if (k === '--requests') o.requests = Number(v);
    else if (k === '--template-calls') o.templateCalls = Number(v);
    else if (k === '--drop-days') o.dropDays = Number(v);
    else if (k === '--drop-gap-ms') o.dropGapMs = Number(v);
    else throw new Error(`unknown option ${k}`);
    if (!['--tiny', '--explain'].includes(k)) i++;
  }
  if (o.large > o.calls / 10) throw new Error('--large must be at most --calls / 10 (the 1x database holds a tenth of the calls)');
  if (o.firms < 30 || o.auditFirms + 2 > o.firms)
    throw new Error('--firms must be at least 30 and hold --audit-firms besides the large and template firms');
  return o;
}

/** The two sizes: 1x is a tenth of every count but the large firm's calls; 10x is the 1x seeding grown. */
function sizes(o) {
  const one = {
    name: '1x',
    firms: Math.floor(o.firms / 10),
    otherCalls: Math.floor(o.calls / 10) - o.large,
    auditFirms: Math.floor(o.auditFirms / 10),
  };
  const ten = { name: '10x', firms: o.firms, otherCalls: o.calls - o.large, auditFirms: o.auditFirms };
  return { one, ten };
}

// ---------------------------------------------------------------- seeding

/** Seeds one size on top of the previous one (`prev`, or nothing); returns seconds per part. */
async function seedStage(client, ctx, stage, prev, o) {
  const t0 = Date.now();
  const firmFrom = prev ? prev.firms : 2;
  await seedFirms(client, ctx.app, firmFrom, stage.firms, ctx.now);
  const parts = {};
  const add = (t) => Object.entries(t).forEach(([k, v]) => (parts[k] = (parts[k] ?? 0) + v));
  const common = { days: o.days, now: ctx.now, templateCalls: ctx.templateCalls };
  if (!prev) add(await seedCalls(client, { ...common, g0: 1, g1: o.large + 1, firmFrom: 0, firmTo: 1 }));
  const g0 = o.large + 1 + (prev ? prev.otherCalls : 0);
  add(await seedCalls(client, { ...common, g0, g1: o.large + 1 + stage.otherCalls, firmFrom, firmTo: stage.firms }));
  let t = Date.now();
  await seedMail(client, { firmFrom, firmTo: stage.firms, perDay: Math.ceil((stage.firms - firmFrom) / 100), days: o.days, now: ctx.now });
  parts.mail = (Date.now() - t) / 1000;
  t = Date.now();
  await seedAudit(client, { firmFrom: 2 + (prev ? prev.auditFirms : 0), firmTo: 2 + stage.auditFirms, days: o.days, now: ctx.now });
  parts.audit = (Date.now() - t) / 1000;
  return { seconds: (Date.now() - t0) / 1000, parts };
}

/**
 * A database at one size (the 10x one is seeded at 1x, then grown), in timed phases: the service-made part, the day
 * partitions, the seeding session, the secondary indexes dropped, each size's SQL seeding, the indexes built again, and
 * VACUUM (ANALYZE) of the tables the requests read (an index-only scan needs their visibility map) with ANALYZE of the rest.
 */
async function seedDatabase(databaseUrl, stages, o, now) {
  const t0 = Date.now();
  const ctx = await prepareDatabase(databaseUrl, SECRET, o.templateCalls);
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    return await seedPhases(ctx, client, stages, o, now, { service: (Date.now() - t0) / 1000 });
  } catch (err) {
    // Closed here, so stopping the server afterwards does not break a live connection (an unhandled error that ends
    // the process before the server is stopped and its temp folder removed).
    await client.end().catch(() => undefined);
    await ctx.app.close().catch(() => undefined);
    throw err;
  }
}

async function seedPhases(ctx, client, stages, o, now, phases) {
  let t = Date.now();
  const lap = (name) => {
    phases[name] = (Date.now() - t) / 1000;
    t = Date.now();
  };
  const cpu = await backendCpu(client);
  const cpu0 = cpu();
  await ensureDayPartitions(client, now, o.days);
  lap('partitions');
  const { templateCalls } = await openSeedSession(client, ctx.templateId, ctx.largeId);
  lap('session');
  const indexes = await dropSecondaryIndexes(client);
  lap('indexes_dropped');
  Object.assign(ctx, { now, templateCalls, client, seeding: [], phases });
  const name = stages.at(-1).name;
  let prev = null;
  for (const stage of stages) {
    const s = await seedStage(client, ctx, stage, prev, o);
    ctx.seeding.push({ stage: stage.name, ...s });
    lap(`seed_${stage.name}`);
    log(`${name} database, ${stage.name}: seeded in ${s.seconds.toFixed(1)} s (${seconds(s.parts)})`);
    prev = stage;
  }
  ctx.indexSeconds = await buildIndexes(client, indexes);
  lap('indexes_built');
  log(`${name} database: ${indexes.length} secondary indexes built again (${seconds(ctx.indexSeconds)})`);
  await client.query(`VACUUM (ANALYZE) ${READ_TABLES.join(', ')}`);
  lap('vacuum_read_tables');
  await client.query(`ANALYZE ${TABLES.filter((x) => !READ_TABLES.includes(x)).join(', ')}`);
  lap('analyze_others');
  ctx.vacuumSeconds = phases.vacuum_read_tables + phases.analyze_others;
  ctx.seedingSeconds = Object.values(phases).reduce((a, b) => a + b, 0);
  ctx.seedingCpuSeconds = cpu0 === null ? null : cpu() - cpu0;
  log(
    `${name} database seeded in ${ctx.seedingSeconds.toFixed(1)} s (its SQL session used ${ctx.seedingCpuSeconds?.toFixed(1) ?? 'n/a'} CPU s): ${seconds(phases)}`,
  );
  await client.query('RESET synchronous_commit');
  await client.query('RESET session_replication_role');
  return ctx;
}

/**
 * The CPU seconds the server process behind `client` has used so far (/proc/<pid>/stat utime + stime, in Linux's 100
 * ticks a second), or null when that process is not on this machine. On a shared machine the wall time of the seeding
 * follows the load; its CPU time does not, so it says what the seeding costs on a quiet one. Parallel index-build
 * workers are processes of their own and are not counted.
 */
async function backendCpu(client) {
  const [{ pid }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows;
  const read = () => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return null;
    }
  };
  return read;
}

const seconds = (o) =>
  Object.entries(o)
    .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
    .join(', ');
/** What the requests read: vacuumed after the seeding so their index-only scans and hint bits are as autovacuum leaves them. */
const READ_TABLES = ['orgs', 'webhook_endpoints', 'calls', 'leads', 'call_references'];

/** What the requests need from the large firm: the deep page's cursor, calls to read, leads to change. */
async function targets(ctx, o) {
  const { KeysetCursors } = require(dist('common/pagination/keyset.js'));
  const { client, largeId } = ctx;
  const position = Math.min(DEEP_PAGES * 100, o.large - 101);
  const deep = (
    await client.query(`SELECT started_at, call_id FROM calls WHERE org_id = $1 ORDER BY started_at DESC, call_id DESC OFFSET $2 LIMIT 2`, [
      largeId,
      position - 1,
    ])
  ).rows;
  const cursor = ctx.app.get(KeysetCursors).page('calls', deep, 1, { filters: {}, firmId: largeId }, (r) => ({
    at: r.started_at.toISOString(),
    id: r.call_id,
  })).nextCursor;
  // Calls spread over the firm's whole history (detail reads all over the table), and its newest leads (PATCHed in turn).
  const callIds = (
    await client.query(
      `SELECT call_id FROM (SELECT call_id, row_number() OVER (ORDER BY started_at) AS k FROM calls WHERE org_id = $1) x WHERE k % $2 = 0 LIMIT 50`,
      [largeId, Math.max(1, Math.floor(o.large / 50))],
    )
  ).rows.map((r) => r.call_id);
  const leadIds = (
    await client.query(`SELECT lead_id FROM leads WHERE org_id = $1 ORDER BY captured_at DESC LIMIT 20`, [largeId])
  ).rows.map((r) => r.lead_id);
  return { cursor, callIds, leadIds, deepPosition: position };
}

// ---------------------------------------------------------------- requests

/** One HTTP request on a keep-alive connection; resolves to its status and milliseconds. */
function timedRequest(api, method, path, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const t0 = process.hrtime.bigint();
    const req = httpRequest(
      `${api.baseUrl}${path}`,
      {
        method,
        agent: api.agent,
        headers: { authorization: `Bearer ${api.key}`, ...(data ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - t0) / 1e6, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** The five requests of the measurement, the i-th of each (detail and PATCH go round their calls and leads). */
const SCENARIOS = [
  ['calls list, first page', () => ['GET', '/v1/calls?limit=100']],
  [
    `calls list, after ${DEEP_PAGES.toLocaleString('en-US')} pages`,
    (t) => ['GET', `/v1/calls?limit=100&cursor=${encodeURIComponent(t.cursor)}`],
  ],
  ['call detail', (t, i) => ['GET', `/v1/calls/${encodeURIComponent(t.callIds[i % t.callIds.length])}`]],
  ['leads list, first page', () => ['GET', '/v1/leads?limit=100']],
  [
    'PATCH lead (external_id)',
    (t, i, size) => ['PATCH', `/v1/leads/${t.leadIds[i % t.leadIds.length]}`, { external_id: `CRM-${size}-${i}` }],
  ],
];

async function call(api, scenario, i) {
  const [method, path, body] = scenario(api.targets, i, api.size);
  const r = await timedRequest(api, method, path, body);
  if (r.status !== 200) throw new Error(`${method} ${path} on ${api.size}: ${r.status} ${r.body.toString().slice(0, 300)}`);
  return r;
}

/** Each scenario in rounds, 1x and 10x alternating (order swapped each round), after a warm-up of each. */
async function measure(apis, requests) {
  const rounds = Math.max(1, Math.min(10, Math.floor(requests / 20)));
  const perRound = Math.ceil(requests / rounds);
  const results = [];
  let counter = 0;
  for (const [name, scenario] of SCENARIOS) {
    const ms = apis.map(() => []);
    for (const api of apis) for (let i = 0; i < Math.min(20, requests); i++) await call(api, scenario, counter++);
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) for (let i = 0; i < perRound; i++) ms[k].push((await call(apis[k], scenario, counter++)).ms);
    }
    const [one, ten] = ms.map(latencyStats);
    results.push({ name, one, ten, p50_ratio: ten.p50 / one.p50, p99_ratio: ten.p99 / one.p99 });
    log(`${name}: 1x p50 ${one.p50.toFixed(2)} p99 ${one.p99.toFixed(2)} ms | 10x p50 ${ten.p50.toFixed(2)} p99 ${ten.p99.toFixed(2)} ms`);
  }
  return results;
}

/** The reads kept running while days are dropped: one loop each, side by side. */
const DROP_READERS = [0, 2, 3].map((k) => SCENARIOS[k]);
/** The control windows' name: a backend kept busy as long as a drop took, touching nothing. */
const CONTROL = 'a CPU burn of the same length (control)';
/** A read belongs to the window its start falls in: by overlap, a long read would count in more windows than a short one. */
const startsIn = (r, a, b) => r.t0 >= a && r.t0 < b;

/**
 * Drops `days` one after another (each retained table in turn) at the size `api` serves, while one reader loop per
 * DROP_READERS scenario reads without pause on its own connection. Before each table's drop the readers run alone for
 * `gapMs`. A read is "during" when it starts while a drop runs; "before" when it starts in the window of the same
 * length just before a drop's start. Resolves to the drops and both sets of reads, in all and by scenario.
 */
async function dropsUnderReads(api, ctx, days, gapMs) {
  const reads = [];
  let running = true;
  const loops = DROP_READERS.map(async ([name, scenario]) => {
    const reader = { ...api, agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
    for (let i = 0; running; i++) {
      const t0 = performance.now();
      await call(reader, scenario, i);
      reads.push({ name, t0, t1: performance.now() });
    }
    reader.agent.destroy();
  });
  const drops = [];
  const pause = () => new Promise((resolve) => setTimeout(resolve, gapMs));
  const burns = [];
  try {
    for (const day of days) drops.push(...(await dropOneDay(ctx, day, pause)).map((d) => ({ day: day.toISOString().slice(0, 10), ...d })));
    // The control: a PostgreSQL backend busy for as long as each drop took, touching no table, at the same cadence.
    // Reads slowed as much by it as by the drops were slowed by the machine's CPU, not by the drop.
    for (const d of drops) {
      await pause();
      const start = performance.now();
      const ms = Math.max(1, Math.round(d.seconds * 1000));
      await ctx.client.query(
        `DO $$ DECLARE t timestamptz := clock_timestamp() + interval '${ms} milliseconds'; BEGIN WHILE clock_timestamp() < t LOOP END LOOP; END $$`,
      );
      burns.push({ table: CONTROL, start, end: performance.now() });
    }
    await pause();
  } finally {
    running = false;
    await Promise.all(loops);
  }
  const during = reads.filter((r) => drops.some((d) => startsIn(r, d.start, d.end)));
  const before = reads.filter((r) => drops.some((d) => startsIn(r, d.start - (d.end - d.start), d.start)));
  const byScenario = DROP_READERS.map(([name]) => ({
    name,
    during: latencyStats(during.filter((r) => r.name === name).map((r) => r.t1 - r.t0)),
    before: latencyStats(before.filter((r) => r.name === name).map((r) => r.t1 - r.t0)),
  }));
  // By the table being dropped: a read waits on a drop's lock only through its audit row (audit_log's days), so
  // reads slowed by the other tables' drops are slowed by the machine (CPU, WAL, catalog invalidations), not a lock.
  const windows = [...drops, ...burns];
  const byTable = [...new Set(windows.map((d) => d.table))].map((table) => {
    const mine = windows.filter((d) => d.table === table);
    return {
      table,
      during: latencyStats(reads.filter((r) => mine.some((d) => startsIn(r, d.start, d.end))).map((r) => r.t1 - r.t0)),
      before: latencyStats(
        reads.filter((r) => mine.some((d) => startsIn(r, d.start - (d.end - d.start), d.start))).map((r) => r.t1 - r.t0),
      ),
    };
  });
  for (const t of byTable)
    log(
      `reads while ${t.table === CONTROL ? CONTROL : `${t.table} days drop`}: ${t.during.n} reads p50 ${t.during.p50?.toFixed(2)} p99 ${t.during.p99?.toFixed(2)} ms | before: ${t.before.n} reads p50 ${t.before.p50?.toFixed(2)} p99 ${t.before.p99?.toFixed(2)} ms`,
    );
  return {
    drops: drops.map(({ start: _start, end: _end, ...d }) => d),
    during: latencyStats(during.map((r) => r.t1 - r.t0)),
    before: latencyStats(before.map((r) => r.t1 - r.t0)),
    byScenario,
    byTable,
    reads: reads.length,
  };
}

// ---------------------------------------------------------------- disk and plans

const TABLES = ['calls', 'leads', 'call_references', 'events', 'webhook_deliveries', 'mail_outbox', 'audit_log'];

async function disk(client) {
  const out = {};
  for (const t of TABLES) {
    // A partitioned table's size is its partitions' (pg_partition_tree has no rows for a plain table).
    const r = (
      await client.query(
        `SELECT (SELECT count(*) FROM ${t})::bigint AS rows,
                coalesce((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree($1::regclass)),
                         pg_total_relation_size($1::regclass))::bigint AS bytes`,
        [t],
      )
    ).rows[0];
    out[t] = { rows: Number(r.rows), bytes: Number(r.bytes) };
  }
  out.database = { bytes: Number((await client.query(`SELECT pg_database_size(current_database())::bigint AS b`)).rows[0].b) };
  return out;
}

/** EXPLAIN (ANALYZE, BUFFERS) of the list reads, through the service's own repositories (same SQL). */
async function explain(ctx, t) {
  const { CallsRepository } = require(dist('calls/calls.repository.js'));
  const { LeadsRepository } = require(dist('leads/leads.repository.js'));
  const m = pgQueryable(ctx.client, (config, run) => run({ ...config, text: `EXPLAIN (ANALYZE, BUFFERS) ${config.text}` }));
  const text = (rows) => rows.map((r) => r['QUERY PLAN']).join('\n');
  const deep = (
    await ctx.client.query(
      `SELECT started_at, call_id FROM calls WHERE org_id = $1 ORDER BY started_at DESC, call_id DESC OFFSET $2 LIMIT 1`,
      [ctx.largeId, t.deepPosition - 1],
    )
  ).rows[0];
  return {
    'calls first page': text(await new CallsRepository().listPage(m, ctx.largeId, true, {}, null, 100)),
    'calls deep page': text(
      await new CallsRepository().listPage(m, ctx.largeId, true, {}, { at: deep.started_at.toISOString(), id: deep.call_id }, 100),
    ),
    'leads first page': text(await new LeadsRepository().listPage(m, ctx.largeId, true, {}, null, 100)),
  };
}

// ---------------------------------------------------------------- main

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const { one, ten } = sizes(o);
  const load = { start: loadavg() };
  log(`growth bench: ${cpus().length} CPUs, Node ${process.version}, load average ${load.start.map((x) => x.toFixed(2)).join(' ')}`);
  const { databaseUrl, stop } = await benchDatabase('bench-growth');
  const urls = [databaseUrl, await createDatabase(databaseUrl, `${new URL(databaseUrl).pathname.slice(1)}_10x`)];
  const ctxs = [];
  const apis = [];
  try {
    const boot = new pg.Client({ connectionString: databaseUrl });
    await boot.connect();
    const [{ now }] = (await boot.query(`SELECT date_trunc('milliseconds', clock_timestamp()) AS now`)).rows;
    await boot.end();
    // Both at once: PostgreSQL does the work, one core each.
    const seeded = await Promise.allSettled([[one], [one, ten]].map((stages, i) => seedDatabase(urls[i], stages, o, now)));
    ctxs.push(...seeded.filter((s) => s.status === 'fulfilled').map((s) => s.value));
    const failed = seeded.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    load.seeded = loadavg();
    const tgts = await Promise.all(ctxs.map((ctx) => targets(ctx, o)));
    const started = await Promise.all(
      // The readers stand for many firms: the per-key cap on requests under way never makes them wait in line.
      urls.map((url) =>
        startApi({
          DATABASE_URL: url,
          WEBHOOK_SECRET_KEY: SECRET,
          LOG_LEVEL: 'warn',
          RATE_LIMIT_PER_SECOND: '1000000',
          CONCURRENT_REQUESTS_PER_KEY: '10000',
        }),
      ),
    );
    for (const [i, api] of started.entries())
      apis.push({
        ...api,
        agent: new Agent({ keepAlive: true, maxSockets: 1 }),
        key: ctxs[i].key,
        targets: tgts[i],
        size: ['1x', '10x'][i],
      });
    const plans = o.explain ? await Promise.all(ctxs.map((c, i) => explain(c, tgts[i]))) : null;
    if (plans) for (const [i, p] of plans.entries()) for (const [k, v] of Object.entries(p)) log(`\nEXPLAIN ${k} (${apis[i].size}):\n${v}`);
    const statements = o.explain ? await detailStatements(ctxs, tgts, o.requests) : null;
    if (statements) {
      for (const [k, name] of [
        ['read', 'detail read (with the key standing)'],
        ['audit', 'its audit row'],
      ])
        log(
          `statement ${name}: 1x p50 ${statements[k][0].p50.toFixed(3)} p99 ${statements[k][0].p99.toFixed(3)} ms | 10x p50 ${statements[k][1].p50.toFixed(3)} p99 ${statements[k][1].p99.toFixed(3)} ms`,
        );
      for (const [i, e] of statements.explains.entries()) log(`\nEXPLAIN EXECUTE call_detail_with_standing (${apis[i].size}):\n${e}`);
    }
    const reads = await measure(apis, o.requests);
    load.measured = loadavg();
    // Disk first, with the whole 30 days; then one day dropped at 1x, and the oldest `dropDays` at 10x under reads.
    const disks = await Promise.all(ctxs.map((c) => disk(c.client)));
    const days = oldestWholeDays(now, o.days, o.dropDays);
    const drop1x = await dropOneDay(ctxs[0], days[0]);
    const under = await dropsUnderReads(apis[1], ctxs[1], days, o.dropGapMs);
    load.dropped = loadavg();
    report(o, { one, ten }, ctxs, reads, { day: days[0], drop1x, under }, disks, load);
  } finally {
    for (const a of apis) a.child.kill();
    for (const c of ctxs) {
      await c.client.end().catch(() => undefined);
      await c.app.close().catch(() => undefined);
    }
    await stop().catch(() => undefined);
  }
}

// ---------------------------------------------------------------- report

const mib = (b) => b / 1048576;
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

function report(o, sz, ctxs, reads, drop, disks, load) {
  const { day, under } = drop;
  const strip = ({ start: _start, end: _end, ...d }) => d;
  const drop1x = drop.drop1x.map(strip);
  const firstDay = day.toISOString().slice(0, 10);
  const drop10x = under.drops.filter((d) => d.day === firstDay);
  const slowest = Object.fromEntries(
    drop1x.map(({ table }) => [table, Math.max(...under.drops.filter((d) => d.table === table).map((d) => d.seconds))]),
  );
  const readLine = (name, r) =>
    `| ${name} | ${r.during.n} | ${f2(r.during.p50)} / ${f2(r.during.p99)} | ${r.before.n} | ${f2(r.before.p50)} / ${f2(r.before.p99)} | ${f2(r.during.p50 / r.before.p50)}x / ${f2(r.during.p99 / r.before.p99)}x |`;
  const perMillion = (d, tables) => tables.reduce((a, t) => a + d[t].bytes, 0) / (d.calls.rows / 1e6);
  const diskRows = disks.map((d, i) => ({
    size: ['1x', '10x'][i],
    calls: d.calls.rows,
    calls_mib_per_million: mib(perMillion(d, ['calls'])),
    calls_leads_refs_mib_per_million: mib(perMillion(d, ['calls', 'leads', 'call_references'])),
    tables: Object.fromEntries(TABLES.map((t) => [t, { rows: d[t].rows, mib: +mib(d[t].bytes).toFixed(1) }])),
    database_mib: +mib(d.database.bytes).toFixed(0),
  }));
  const lines = [
    ...ctxs.map(
      (c, i) =>
        `Seeding ${['1x', '10x'][i]}: ${c.seedingSeconds.toFixed(1)} s, ${c.seedingCpuSeconds?.toFixed(1) ?? 'n/a'} CPU s in its SQL session (${Object.entries(
          c.phases,
        )
          .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
          .join(', ')}).`,
    ),
    `Both databases seeded at once. ${cpus().length} CPUs, load average ${load.start[0].toFixed(2)} at start, ${load.seeded[0].toFixed(2)} after seeding, ${load.measured[0].toFixed(2)} after the reads, ${load.dropped[0].toFixed(2)} after the drops; PostgreSQL ${process.env.BENCH_DATABASE_URL ? 'from BENCH_DATABASE_URL' : 'embedded'}.`,
    `1x: ${diskRows[0].calls.toLocaleString('en-US')} calls, ${sz.one.firms.toLocaleString('en-US')} firms; 10x: ${diskRows[1].calls.toLocaleString('en-US')} calls, ${sz.ten.firms.toLocaleString('en-US')} firms; the large firm holds ${o.large.toLocaleString('en-US')} at both. ${o.requests} requests per scenario and size, one at a time, 1x and 10x alternating.`,
    '',
    '| Request (large firm) | 1x p50 / p99 ms | 10x p50 / p99 ms | 10x vs 1x p50 | 10x vs 1x p99 |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...reads.map(
      (r) =>
        `| ${r.name} | ${f2(r.one.p50)} / ${f2(r.one.p99)} | ${f2(r.ten.p50)} / ${f2(r.ten.p99)} | ${f2(r.p50_ratio)}x | ${f2(r.p99_ratio)}x |`,
    ),
    '',
    `| One day removed (${firstDay}, the oldest whole one) | 1x rows | 1x s | 10x rows | 10x s | 10x slowest of ${under.drops.length / drop1x.length} days, s | how |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...drop10x.map(
      (d, i) =>
        `| ${d.table} | ${drop1x[i].rows.toLocaleString('en-US')} | ${drop1x[i].seconds.toFixed(3)} | ${d.rows.toLocaleString('en-US')} | ${d.seconds.toFixed(3)} | ${slowest[d.table].toFixed(3)} | ${d.how} |`,
    ),
    '',
    `Reads at 10x while ${under.drops.length} day partitions were dropped one after another (${DROP_READERS.length} reader loops side by side, ${under.reads} reads in all; "during" starts while a drop runs, "before" in the window of the same length just before one):`,
    '',
    '| Read | during: reads | during p50 / p99 ms | before: reads | before p50 / p99 ms | during vs before p50 / p99 |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    readLine('all three', under),
    ...under.byScenario.map((r) => readLine(r.name, r)),
    ...under.byTable.map((r) =>
      readLine(r.table === CONTROL ? `all three, during ${CONTROL}` : `all three, while ${r.table} days drop`, r),
    ),
    '',
    '| Disk (pg_total_relation_size) | 1x | 10x |',
    '| --- | ---: | ---: |',
    `| calls, MiB per million calls | ${diskRows[0].calls_mib_per_million.toFixed(0)} | ${diskRows[1].calls_mib_per_million.toFixed(0)} |`,
    `| calls + leads + call_references, MiB per million calls | ${diskRows[0].calls_leads_refs_mib_per_million.toFixed(0)} | ${diskRows[1].calls_leads_refs_mib_per_million.toFixed(0)} |`,
    ...TABLES.map(
      (t) =>
        `| ${t}: rows, MiB | ${diskRows[0].tables[t].rows.toLocaleString('en-US')}, ${diskRows[0].tables[t].mib} | ${diskRows[1].tables[t].rows.toLocaleString('en-US')}, ${diskRows[1].tables[t].mib} |`,
    ),
    `| whole database, MiB | ${diskRows[0].database_mib} | ${diskRows[1].database_mib} |`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  const result = {
    bench: 'growth',
    options: o,
    machine: {
      cpus: cpus().length,
      node: process.version,
      loadavg: Object.fromEntries(Object.entries(load).map(([k, v]) => [k, v.map((x) => +x.toFixed(2))])),
    },
    seeding: ctxs.map((c) => ({
      stages: c.seeding,
      phases_s: c.phases,
      indexes_s: c.indexSeconds,
      vacuum_s: c.vacuumSeconds,
      total_s: c.seedingSeconds,
      session_cpu_s: c.seedingCpuSeconds,
    })),
    reads,
    drop: {
      day: firstDay,
      one: drop1x,
      ten: drop10x,
      ten_all_days: under.drops,
      ten_slowest_s: slowest,
      reads_without: under.before,
      reads_during: under.during,
      reads_by_scenario: under.byScenario,
      reads_by_table: under.byTable,
      reads_all: under.reads,
    },
    disk: diskRows,
  };
  process.stdout.write(JSON.stringify(result) + '\n');
  const outDir = process.env.BENCH_RESULTS_DIR ? pathToFileURL(`${process.env.BENCH_RESULTS_DIR}/`) : new URL('bench/results/', root);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(new URL(`growth-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, outDir), JSON.stringify(result, null, 2));
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack ?? err}\n`);
  process.exit(1);
});
