#!/usr/bin/env node
/**
 * GET /v1/calls (six scenarios), GET /v1/leads and GET /v1/calls/{id} under
 * load: the real service against a minimal Fastify + pg baseline serving the
 * same SQL and the same JSON, in the same run, on one firm with 200,000 calls
 * (and a lead for one call in seven).
 *
 *   npm run bench:calls
 *
 * Environment (all optional): BENCH_DATABASE_URL (a PostgreSQL server to use;
 * default: an embedded one in a temp folder), BENCH_CALLS (200000),
 * BENCH_DURATION (seconds per scenario and server, 20), BENCH_CONNECTIONS (10),
 * BENCH_ROUNDS (alternating service/baseline rounds the duration is split into, 10),
 * BENCH_WARMUP (seconds of warm-up per scenario and server, 1),
 * BENCH_ONLY (comma-separated scenario names or their first words, e.g. "reference,caller_number" or
 * "first page,after" for the first and the deep page),
 * BENCH_CPU_PROF (a folder: the service process writes a V8 CPU profile there, the baseline one in its
 * baseline/ subfolder; bench/cpu-profile-stages.mjs breaks either down by request stage),
 * BENCH_TRANSCRIPT=0 (skips the transcript page measured after the scenarios),
 * BENCH_EXPLAIN=1 (prints EXPLAIN (ANALYZE, BUFFERS) of each calls-list scenario's page query, as the repository
 * writes it for the firm's live calls, before measuring),
 * BENCH_PG_STATEMENTS=1 (embedded server only: prints, for each scenario, PostgreSQL's statements per request of
 *   each server from pg_stat_statements; the baseline then connects as its own role so the two count apart),
 * BENCH_SYSCALLS=1 (needs strace: system calls per request of each server, by peer, 200 requests one at a time per
 *   scenario, after the measurement),
 * BENCH_ACCEPT_ENCODING (sent to the service, e.g. "gzip" or "br": its answers are then compressed;
 * the baseline never compresses, so the ratio then includes the cost of compression),
 * BENCH_BARE_IN_SERVICE=1 (the baseline's handler listens inside the service's process, beside the idle service, and is
 *   measured there: what running in that process costs the same handler, apart from what the service's stages cost;
 *   BENCH_CPU_PROF then writes one profile for both).
 *
 * Both servers run in their own child process (unless BENCH_BARE_IN_SERVICE=1); autocannon runs here. The
 * baseline calls the service's own CallsRepository.listPage / findDetail,
 * LeadsRepository.listPage, readAsOf, CallMapper and toLeadDto (compiled, from
 * dist/), so the SQL and JSON are identical; it
 * skips what the service adds per request: API-key lookup, scope check, query
 * validation, cursor MAC, the firm's timezone, the audit row and its commit.
 * `npm test` runs it once with tiny parameters (test/benches.e2e.spec.ts), so it keeps running.
 */
import { fork } from 'node:child_process';
import { once as exited } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { benchDatabase } from './bench-database.mjs';
import { straceAvailable, syscallsPerRequest, syscallsWanted } from './syscalls.mjs';
import { resetStatements, statementsSince, statementsTable, statementsWanted } from './pg-statements.mjs';
import { pgQueryable } from './pg-queryable.mjs';

const require = createRequire(import.meta.url);
const dist = (p) => fileURLToPath(new URL(`../dist/src/${p}`, import.meta.url));
const SECRET = Buffer.alloc(32, 9).toString('base64');
const CALLS = Number(process.env.BENCH_CALLS ?? 200_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1);
const log = (line) => process.stderr.write(line + '\n');
const BASELINE_ROLE = 'bench_baseline';

const role = process.argv[2];
if (role === 'service') await serveService(process.argv[3], process.argv[4], process.argv[5]);
else if (role === 'baseline') await serveBaseline(process.argv[3], process.argv[4]);
else await main();

// ---------------------------------------------------------------- children

/** With `bareUrl` (BENCH_BARE_IN_SERVICE=1), the bare handler listens in this process too, beside the idle service. */
async function serveService(databaseUrl, orgId, bareUrl) {
  require('reflect-metadata');
  const { loadConfig } = require(dist('config/app-config.js'));
  const { createApp } = require(dist('create-app.js'));
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    WEBHOOK_SECRET_KEY: SECRET,
    LOG_LEVEL: 'silent',
    PORT: '0',
    ROLE: 'api',
    BASE_URL: 'http://bench.local',
    // The per-key limit stays on (its statement is part of the hot path) but high enough never to refuse.
    RATE_LIMIT_PER_SECOND: '1000000',
    // The bench's connections share one key and stand for many firms' requests: the per-key cap on requests under way
    // stays on (its hook is on the hot path) but never makes them wait in line.
    CONCURRENT_REQUESTS_PER_KEY: '10000',
  });
  const app = await createApp({ config, databaseUrl });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const barePort = bareUrl ? await startBaseline(bareUrl, orgId) : undefined;
  // A CPU profile is written on exit, which SIGTERM's default action skips.
  process.once('SIGTERM', () => process.exit(0));
  process.send({ port: app.getHttpServer().address().port, barePort });
}

/**
 * The baseline's own login role, a member of the service's (same privileges), so pg_stat_statements, which keys
 * statements by role, counts its statements apart from the service's even where the SQL is the same.
 */
async function baselineRole(client, databaseUrl) {
  const owner = new URL(databaseUrl).username;
  await client.query(`CREATE ROLE ${BASELINE_ROLE} LOGIN PASSWORD '${BASELINE_ROLE}' IN ROLE "${owner}"`);
  const url = new URL(databaseUrl);
  url.username = BASELINE_ROLE;
  url.password = BASELINE_ROLE;
  return url.toString();
}

async function serveBaseline(databaseUrl, orgId) {
  const port = await startBaseline(databaseUrl, orgId);
  process.once('SIGTERM', () => process.exit(0));
  process.send({ port });
}

/** The bare handler: Fastify and a pg Pool around the service's compiled repositories and mappers; its port. */
async function startBaseline(databaseUrl, orgId) {
  require('reflect-metadata');
  const { default: Fastify } = await import('fastify');
  const { default: pg } = await import('pg');
  const { CallsRepository } = require(dist('calls/calls.repository.js'));
  const { CallMapper } = require(dist('calls/call.mapper.js'));
  const { readAsOf } = require(dist('database/change-stamp.js'));
  const { LeadsRepository } = require(dist('leads/leads.repository.js'));
  const { toLeadDto } = require(dist('leads/lead.mapper.js'));
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
  // The bench stops PostgreSQL under idle connections; their 'error' must not end the process before it is killed.
  pool.on('error', () => undefined);
  const repo = new CallsRepository();
  const mapper = new CallMapper(null);
  const app = Fastify();
  const withClient = async (work) => {
    const client = await pool.connect();
    try {
      return await work(pgQueryable(client));
    } finally {
      client.release();
    }
  };
  /** A list page as the service answers it: `limit` of the rows read (one more says there is a next page). */
  const listAnswer = (member, rows, limit, asOf, toItem, positionOf) => {
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    const last = hasMore ? positionOf(page[page.length - 1]) : null;
    return {
      timezone: 'America/Chicago',
      caller_data: 'full',
      [member]: page.map(toItem),
      has_more: hasMore,
      next_cursor: last ? Buffer.from(JSON.stringify({ at: last.at.toISOString(), id: last.id })).toString('base64url') : null,
      as_of: asOf,
      truncated: false,
      note: null,
    };
  };
  app.get('/v1/calls', async (req) => {
    const q = req.query;
    const limit = q.limit ? Number(q.limit) : 20;
    const filters = {
      updatedSince: q.updated_since ? new Date(q.updated_since).toISOString() : undefined,
      callerE164: q.caller_number,
      referenceKey: q.reference,
    };
    const after = q.cursor ? JSON.parse(Buffer.from(q.cursor, 'base64url').toString()) : null;
    const { asOf, rows } = await withClient(async (m) => ({
      asOf: await readAsOf(m, 30_000),
      rows: await repo.listPage(m, orgId, true, filters, after, limit),
    }));
    return listAnswer(
      'calls',
      rows,
      limit,
      asOf,
      (r) => mapper.item(r),
      (r) => ({ at: r.startedAt, id: r.callId }),
    );
  });
  const leads = new LeadsRepository();
  app.get('/v1/leads', async (req) => {
    const limit = req.query.limit ? Number(req.query.limit) : 20;
    const { asOf, rows } = await withClient(async (m) => ({
      asOf: await readAsOf(m, 30_000),
      rows: await leads.listPage(m, orgId, true, {}, null, limit),
    }));
    return listAnswer('leads', rows, limit, asOf, toLeadDto, (r) => ({ at: r.capturedAt, id: r.leadId }));
  });
  app.get('/v1/calls/:id', async (req, reply) => {
    const row = await withClient((m) => repo.findDetail(m, orgId, true, req.params.id));
    if (!row) return reply.code(404).send({ code: 'not_found' });
    return { timezone: 'America/Chicago', caller_data: 'full', call: mapper.detail(row) };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app.server.address().port;
}

// ---------------------------------------------------------------- main

/**
 * Node CPU of a request and of each item, from the first page and the one-call page of the same run (the same query
 * and mapping; only the number of rows differs): what every request costs apart from its items, and what each item adds.
 */
function perItemLine(rows, pageSize) {
  const page = rows.find((r) => r.name === 'first page');
  const one = rows.find((r) => r.name === 'one-call page');
  if (!page || !one) return '';
  const items = pageSize.get('first page') - pageSize.get('one-call page');
  if (items <= 0) return '';
  const perItem = (who) => (page[who].nodeUs - one[who].nodeUs) / items;
  const [s, b] = [perItem('s'), perItem('b')];
  return (
    `Node CPU apart from the items (one-call page): service ${one.s.nodeUs.toFixed(0)} µs, baseline ${one.b.nodeUs.toFixed(0)} µs (${(one.s.nodeUs / one.b.nodeUs).toFixed(2)}x); ` +
    `each item more (first page minus one-call page, over ${items}): service ${s.toFixed(1)} µs, baseline ${b.toFixed(1)} µs (${(s / b).toFixed(2)}x).`
  );
}

/** BENCH_SYSCALLS=1: each scenario's system calls per request on both servers, 200 requests sent one at a time. */
async function syscallTable(scenarios, { service, baseline, auth, pgPort }) {
  if (!straceAvailable()) return log('BENCH_SYSCALLS: strace is not installed; skipped');
  const requests = 200;
  const lines = [
    'System calls per request (strace, 200 requests one at a time; reads and writes on the client socket and on PostgreSQL sockets, and all epoll_wait):',
    '',
    '| Scenario | server | HTTP reads / writes | PostgreSQL writes / reads | epoll_wait | all traced |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
  ];
  for (const [name, sp, bp] of scenarios)
    for (const [who, server, path, headers] of [
      ['service', service, sp, auth],
      ['baseline', baseline, bp, {}],
    ]) {
      // fetch asks for gzip by default; autocannon's measurement does not (unless BENCH_ACCEPT_ENCODING), nor does this.
      const plain = { 'accept-encoding': 'identity', ...headers };
      const work = async () => {
        for (let i = 0; i < requests; i++) await (await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: plain })).arrayBuffer();
      };
      const r = await syscallsPerRequest(server.proc.pid, { httpPort: server.port, pgPort, requests, work });
      const all = Object.values(r.byName).reduce((a, b) => a + b, 0);
      lines.push(
        `| ${name} | ${who} | ${r.http.reads} / ${r.http.writes} | ${r.pg.writes} / ${r.pg.reads} | ${(r.byName.epoll_wait ?? 0) + (r.byName.epoll_pwait ?? 0)} | ${all.toFixed(1)} |`,
      );
      log(`${name}, ${who}: system calls per request by name ${JSON.stringify(r.byName)}`);
    }
  log(lines.join('\n'));
}

/** CPU seconds (user + system) a process has used, from /proc; 0 where /proc is not there. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in USER_HZ (100 on Linux)
  } catch {
    return 0;
  }
}

/** The parent process id, from /proc (0 where /proc is not there). */
function parentPid(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  } catch {
    return 0;
  }
}

/**
 * CPU seconds used by this bench's PostgreSQL server: its postmaster and every process it started
 * (other PostgreSQL servers on a shared machine are not counted).
 */
function postgresCpuSeconds(postmaster) {
  let total = cpuSeconds(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (parentPid(entry) === postmaster) total += cpuSeconds(entry);
  }
  return total;
}

/** SIGTERM, and the child's exit (at once if it has already ended). */
async function stopChild(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const gone = exited(proc, 'exit');
  proc.kill();
  await gone;
}

function child(args, execArgv = []) {
  return new Promise((resolve, reject) => {
    const proc = fork(fileURLToPath(import.meta.url), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
    proc.once('message', (m) => resolve({ proc, port: m.port, barePort: m.barePort }));
    proc.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

/** The plan of each calls-list scenario's page query (the repository's own SQL, captured, then run under EXPLAIN). */
async function explainPages(client, orgId, updatedSince) {
  const { CallsRepository } = require(dist('calls/calls.repository.js'));
  const repo = new CallsRepository();
  const pages = [
    ['first page', {}],
    ['updated_since (last hour)', { updatedSince }],
    ['caller_number', { callerE164: '+13125550142' }],
    ['reference', { referenceKey: 'CLM1000' }],
  ];
  for (const [name, filters] of pages) {
    let captured;
    await repo.listPage(
      pgQueryable(null, async (config) => ((captured = { sql: config.text, params: config.values }), { rows: [] })),
      orgId,
      true,
      filters,
      null,
      100,
    );
    const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${captured.sql}`, captured.params);
    log(`EXPLAIN ${name}:\n${plan.rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}`);
  }
}

async function main() {
  const { default: pg } = await import('pg');
  const { default: autocannon } = await import('autocannon');
  require('reflect-metadata');

  // A database: BENCH_DATABASE_URL's server, or an embedded one.
  const { databaseUrl, stop: stopPg } = await benchDatabase('bench-calls');
  const children = [];
  try {
    const { runMigrations } = require(dist('database/migrate.js'));
    await runMigrations(databaseUrl);

    // 2. The firm and a key, through the service's own services.
    const { loadConfig } = require(dist('config/app-config.js'));
    const { createApp } = require(dist('create-app.js'));
    const { AccountService } = require(dist('account/index.js'));
    const { ApiKeyService } = require(dist('auth/index.js'));
    const { KeysetCursors } = require(dist('common/pagination/keyset.js'));
    const setupApp = await createApp({
      config: loadConfig({ DATABASE_URL: databaseUrl, WEBHOOK_SECRET_KEY: SECRET, LOG_LEVEL: 'silent', PORT: '0', ROLE: 'api' }),
      databaseUrl,
    });
    await setupApp.init();
    const org = await setupApp.get(AccountService).createOrg({ name: 'Bench Firm', slug: 'bench' });
    const { key } = await setupApp.get(ApiKeyService).create({ orgId: org.id, name: 'bench', set: 'read' });
    const cursors = setupApp.get(KeysetCursors);

    // 3. 200,000 calls in bulk (one INSERT ... SELECT generate_series), references, one 1,000-turn transcript.
    const client = new pg.Client({ connectionString: databaseUrl });
    // A failure below stops PostgreSQL in `finally`; its connection's error must not hide the failure's own.
    client.on('error', () => undefined);
    await client.connect();
    const [{ now }] = (await client.query(`SELECT date_trunc('milliseconds', clock_timestamp()) AS now`)).rows;
    const postmaster = parentPid((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    let t0 = Date.now();
    await client.query(
      `INSERT INTO calls (org_id, call_id, started_at, duration_s, answered, category, urgency, language, outcome, from_e164, callback_number,
                          callback_extension, processing_complete, completed_event_at, config_version, lead_id, untrusted, conversation_summary,
                          handling, has_recording, created_at, updated_at)
       SELECT $1::uuid, 'call_' || lpad(s.g::text, 7, '0'), s.started, 30 + s.g % 600, s.g % 12 <> 5,
              CASE WHEN s.g % 12 = 5 THEN NULL ELSE (ARRAY['new_injury_lead','existing_client','judge_court','process_server','opposing_counsel',
                'referring_attorney','insurance_adjuster','medical_provider','litigation_funding','out_of_practice','sales','wrong_number','other'])[1 + s.g % 13] END,
              CASE WHEN s.g % 12 = 5 THEN NULL ELSE (ARRAY['high','normal','low'])[1 + s.g % 3] END,
              CASE WHEN s.g % 12 = 5 THEN NULL ELSE (ARRAY['en','en','en','es','mixed'])[1 + s.g % 5] END,
              CASE WHEN s.g % 12 = 5 THEN 'not_attempted' ELSE (ARRAY['connected','declined','caller_gone','no_answer','not_attempted'])[1 + s.g % 5] END,
              '+1312555' || lpad((s.g % 5000)::text, 4, '0'),
              CASE WHEN s.g % 3 = 0 THEN '(312) 555-' || lpad((s.g % 9000)::text, 4, '0') END, NULL, true, s.started, 4,
              CASE WHEN s.g % 7 = 0 THEN 'lead_' || lpad(s.g::text, 7, '0') END,
              jsonb_build_object(
                'summary', jsonb_build_object('reason', 'Caller was rear-ended on I-90 and wants to talk to an attorney (' || s.g || ').',
                                              'message', 'Please call back after 5pm; has photos of the damage and the police report number.'),
                'caller_name', 'Caller ' || s.g,
                'details', jsonb_build_object(
                  'about', jsonb_build_array(jsonb_build_object('name', 'Ana Reyes', 'relation', 'injured_party')),
                  'caller_organization', NULL, 'asked_for', 'Dana Harper', 'message_for', NULL, 'best_time', 'after 5pm',
                  'references', CASE WHEN s.g % 4 = 0 THEN jsonb_build_array(jsonb_build_object('kind', 'claim_number', 'value', 'CLM-' || (s.g % 10000),
                                                                                                 'key', 'CLM' || (s.g % 10000), 'for_name', 'Ana Reyes'))
                                     ELSE '[]'::jsonb END,
                  'generated_at', '2026-03-02T15:10:00.000Z')),
              NULL, NULL, s.g % 5 = 0, s.started,
              CASE WHEN s.g % 50 = 0 THEN $2::timestamptz - (s.g % 3600) * interval '1 second' ELSE s.started + interval '5 minutes' END
         FROM (SELECT g, date_trunc('milliseconds', $2::timestamptz - g * interval '25.9 seconds') AS started FROM generate_series(1, $3::int) g) s`,
      [org.id, now, CALLS],
    );
    await client.query(
      `INSERT INTO call_references (org_id, key, call_id)
       SELECT $1::uuid, 'CLM' || (g % 10000), 'call_' || lpad(g::text, 7, '0') FROM generate_series(4, $2::int, 4) g`,
      [org.id, CALLS],
    );
    await client.query(
      `INSERT INTO transcripts (org_id, call_id, conversation_status, connected_name, notice, covers, briefings, turn_count, intake_count, briefing_count, conversation_count)
       VALUES ($1, 'call_0000001', 'complete', 'Maya Chen', NULL, '{intake,conversation}', '[]', 1000, 100, 0, 900)`,
      [org.id],
    );
    await client.query(
      `INSERT INTO transcript_turns (org_id, call_id, idx, segment, seg_idx, speaker, speaker_name, text, start_s)
       SELECT $1, 'call_0000001', g, CASE WHEN g < 100 THEN 'intake' ELSE 'conversation' END, CASE WHEN g < 100 THEN g ELSE g - 100 END,
              CASE WHEN g % 2 = 0 THEN (CASE WHEN g < 100 THEN 'receptionist' ELSE 'staff' END) ELSE 'caller' END,
              CASE WHEN g >= 100 AND g % 2 = 0 THEN 'Maya Chen' END,
              'This is what was said in turn ' || g || ', a sentence or two of ordinary conversation about the accident and the injuries.', g * 4.2
         FROM generate_series(0, 999) g`,
      [org.id],
    );
    // A lead for every call that names one (one call in seven).
    await client.query(
      `INSERT INTO leads (org_id, lead_id, call_id, status, captured_at, created_at, updated_at, category, urgency, language,
                          intake_completeness, phone, phone_e164, email, untrusted_name, untrusted_incident_date, intake)
       SELECT c.org_id, c.lead_id, c.call_id, (ARRAY['new','contacted','signed','rejected'])[1 + length(c.call_id) % 4], c.started_at,
              c.started_at, c.updated_at, c.category, c.urgency, c.language, 0.75, '(312) 555-0142', c.from_e164,
              'caller@example.com', 'Caller ' || c.call_id, '2026-02-28',
              jsonb_build_object('extracted_at', '2026-03-02T15:10:00.000Z', 'completeness', 0.75,
                                 'untrusted', jsonb_build_object('injury_description', 'Neck and back pain after a rear-end collision.'))
         FROM calls c WHERE c.org_id = $1 AND c.lead_id IS NOT NULL`,
      [org.id],
    );
    await client.query('ANALYZE');
    const seedSeconds = (Date.now() - t0) / 1000;
    log(`seeded ${CALLS} calls in ${seedSeconds.toFixed(1)} s`);

    // 4. The deep page: the position after 1,000 pages of 100 (keyset position of row 100,000). Its cursor is made
    // the way CallsService makes next_cursor: the page's rows fetched with LIMIT n + 1 (here n = 1, ending at that
    // row), the list's kind, no filters, and the firm it is bound to.
    const [deep, ...more] = (
      await client.query(
        `SELECT started_at, call_id FROM calls WHERE org_id = $1 ORDER BY started_at DESC, call_id DESC OFFSET $2 LIMIT 2`,
        [org.id, Math.min(100_000, CALLS - 101) - 1],
      )
    ).rows;
    const serviceCursor = cursors.page('calls', [deep, ...more], 1, { filters: {}, firmId: org.id }, (r) => ({
      at: r.started_at.toISOString(),
      id: r.call_id,
    })).nextCursor;
    const baselineCursor = Buffer.from(JSON.stringify({ at: deep.started_at.toISOString(), id: deep.call_id })).toString('base64url');
    const updatedSince = new Date(now.getTime() - 3_600_000).toISOString();
    if (process.env.BENCH_EXPLAIN === '1') await explainPages(client, org.id, updatedSince);
    const baselineUrl = statementsWanted() ? await baselineRole(client, databaseUrl) : databaseUrl;
    await client.end();
    await setupApp.close();

    // 5. Both servers, each in its own process.
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    const bareInService = process.env.BENCH_BARE_IN_SERVICE === '1';
    const service = await child(['service', databaseUrl, org.id, ...(bareInService ? [baselineUrl] : [])], profile);
    children.push(service.proc);
    const baselineProfile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/baseline`] : [];
    // Sharing a process, the two are measured apart by their rounds, which alternate (the idle one costs next to nothing).
    const baseline = bareInService
      ? { proc: service.proc, port: service.barePort }
      : await child(['baseline', baselineUrl, org.id], baselineProfile);
    if (bareInService) log("BENCH_BARE_IN_SERVICE=1: the baseline is served from the service's process");
    else children.push(baseline.proc);
    const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
    // [name, service path, baseline path, the member holding the items compared]
    const scenarios = [
      ['first page', '/v1/calls?limit=100', '/v1/calls?limit=100', 'calls'],
      // The same page of one call: beside the first page, it parts a request's own cost from its items' (perItemLine).
      ['one-call page', '/v1/calls?limit=1', '/v1/calls?limit=1', 'calls'],
      [
        'after 1,000 cursor steps',
        `/v1/calls?limit=100&cursor=${encodeURIComponent(serviceCursor)}`,
        `/v1/calls?limit=100&cursor=${encodeURIComponent(baselineCursor)}`,
        'calls',
      ],
      [
        'updated_since (last hour)',
        `/v1/calls?limit=100&updated_since=${encodeURIComponent(updatedSince)}`,
        `/v1/calls?limit=100&updated_since=${encodeURIComponent(updatedSince)}`,
        'calls',
      ],
      ['caller_number', '/v1/calls?limit=100&caller_number=%2B13125550142', '/v1/calls?limit=100&caller_number=%2B13125550142', 'calls'],
      ['reference', '/v1/calls?limit=100&reference=CLM-1000', '/v1/calls?limit=100&reference=CLM1000', 'calls'],
      ['leads first page', '/v1/leads?limit=100', '/v1/leads?limit=100', 'leads'],
      ['call detail', '/v1/calls/call_0000007', '/v1/calls/call_0000007', 'call'],
    ].filter(([name]) => !only || only.some((o) => name === o || name.startsWith(`${o} `)));
    const acceptEncoding = process.env.BENCH_ACCEPT_ENCODING;
    const auth = { authorization: `Bearer ${key}`, ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) };

    // Same JSON from both (the calls array) before measuring.
    const pageSize = new Map();
    for (const [name, sp, bp, member] of scenarios) {
      const a = await (await fetch(`http://127.0.0.1:${service.port}${sp}`, { headers: auth })).json();
      const b = await (await fetch(`http://127.0.0.1:${baseline.port}${bp}`)).json();
      if (!a[member] || JSON.stringify(a[member]) !== JSON.stringify(b[member]))
        throw new Error(`${name}: service and baseline disagree (${JSON.stringify(a).slice(0, 300)})`);
      const count = Array.isArray(a[member]) ? a[member].length : 1;
      pageSize.set(name, count);
      log(`${name}: ${count} ${member === 'call' ? 'call' : member} per page, same JSON on both`);
    }

    // The machine may be shared: alternate short rounds of service and baseline (order swapped each round)
    // so both see the same conditions; report the mean throughput and the median round's latencies.
    // CPU per request (the server's process and PostgreSQL's) is steadier than req/s on a shared machine.
    const served = new Map();
    const once = async (url, headers, connections, duration, server) => {
      const pid = server.proc.pid;
      const node0 = cpuSeconds(pid);
      const pg0 = postgresCpuSeconds(postmaster);
      const r = await autocannon({ url, headers, connections, duration });
      if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      const n = r.requests.total || 1;
      served.set(server, (served.get(server) ?? 0) + r.requests.total);
      return {
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        nodeUs: ((cpuSeconds(pid) - node0) * 1e6) / n,
        pgUs: ((postgresCpuSeconds(postmaster) - pg0) * 1e6) / n,
      };
    };
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const summarize = (rs) => ({
      rps: rs.reduce((a, r) => a + r.rps, 0) / rs.length,
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      nodeUs: median(rs.map((r) => r.nodeUs)),
      pgUs: median(rs.map((r) => r.pgUs)),
    });
    const compare = async (sUrl, bUrl) => {
      const sRound = () => once(sUrl, auth, CONNECTIONS, DURATION / ROUNDS, service);
      const bRound = () => once(bUrl, {}, CONNECTIONS, DURATION / ROUNDS, baseline);
      await once(sUrl, auth, CONNECTIONS, WARMUP, service); // warm-up
      await once(bUrl, {}, CONNECTIONS, WARMUP, baseline);
      const s = [];
      const b = [];
      for (let i = 0; i < ROUNDS; i++) {
        if (i % 2 === 0) {
          s.push(await sRound());
          b.push(await bRound());
        } else {
          b.push(await bRound());
          s.push(await sRound());
        }
      }
      return { s: summarize(s), b: summarize(b) };
    };
    const rows = [];
    const statsClient = new pg.Client({ connectionString: databaseUrl });
    statsClient.on('error', () => undefined);
    await statsClient.connect();
    for (const [name, sp, bp] of scenarios) {
      await resetStatements(statsClient);
      const before = [service, baseline].map((c) => served.get(c) ?? 0);
      const { s, b } = await compare(`http://127.0.0.1:${service.port}${sp}`, `http://127.0.0.1:${baseline.port}${bp}`);
      rows.push({ name, s, b });
      for (const [i, [who, user]] of [
        ['service', new URL(databaseUrl).username],
        ['baseline', BASELINE_ROLE],
      ].entries()) {
        const requests = (served.get([service, baseline][i]) ?? 0) - before[i];
        log(
          statementsTable(
            `${name}, ${who}: PostgreSQL statements per request`,
            await statementsSince(statsClient, requests, { role: user }),
          ),
        );
      }
      log(
        `${name}: service ${s.rps.toFixed(0)} req/s p50 ${s.p50} ms p99 ${s.p99} ms, CPU/req node ${s.nodeUs.toFixed(0)} µs pg ${s.pgUs.toFixed(0)} µs | baseline ${b.rps.toFixed(0)} req/s p50 ${b.p50} ms p99 ${b.p99} ms, CPU/req node ${b.nodeUs.toFixed(0)} µs pg ${b.pgUs.toFixed(0)} µs`,
      );
    }
    await statsClient.end();
    if (syscallsWanted()) await syscallTable(scenarios, { service, baseline, auth, pgPort: Number(new URL(databaseUrl).port) });
    const run = async (url, headers, connections, duration, server) => {
      await once(url, headers, connections, WARMUP, server);
      return once(url, headers, connections, duration, server);
    };
    // BENCH_TRANSCRIPT=0 leaves it out (so a CPU profile holds only the scenarios above).
    const tr =
      process.env.BENCH_TRANSCRIPT === '0'
        ? null
        : await run(
            `http://127.0.0.1:${service.port}/v1/calls/call_0000001/transcript?limit=500&start_turn=250`,
            auth,
            1,
            DURATION,
            service,
          );
    if (tr) log(`transcript page of 500 turns (1 connection): p50 ${tr.p50} ms p99 ${tr.p99} ms, ${tr.rps.toFixed(0)} req/s`);

    log(`requests served (for CPU profiles per request): service ${served.get(service)}, baseline ${served.get(baseline)}`);

    // 6. The table for docs/benchmarks.md.
    const f = (n) => n.toFixed(0);
    const first = rows.find((r) => r.name === 'first page')?.s.p50 ?? NaN;
    const label = (name) => {
      const n = pageSize.get(name);
      return n === 100 || name === 'call detail' ? name : `${name} (${n} item${n === 1 ? '' : 's'})`;
    };
    const lines = [
      `Seeded ${CALLS.toLocaleString('en-US')} calls for one firm in ${seedSeconds.toFixed(1)} s. autocannon, ${CONNECTIONS} connections,${acceptEncoding ? ` Accept-Encoding: ${acceptEncoding} to the service,` : ''} ${DURATION} s per scenario and server (${ROUNDS} alternating rounds) after ${WARMUP} s warm-up; PostgreSQL ${process.env.BENCH_DATABASE_URL ? 'from BENCH_DATABASE_URL' : 'embedded'}.`,
      '',
      '| Scenario (limit=100) | service req/s | service p50 / p99 ms | baseline req/s | baseline p50 / p99 ms | throughput vs baseline | p50 vs service first page |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map(
        ({ name, s, b }) =>
          `| ${label(name)} | ${f(s.rps)} | ${s.p50} / ${s.p99} | ${f(b.rps)} | ${b.p50} / ${b.p99} | ${(s.rps / b.rps).toFixed(2)}x | ${(s.p50 / first).toFixed(2)}x |`,
      ),
      '',
      "CPU per request (median round; the server process, and the bench's PostgreSQL server: its postmaster and every process it started), from /proc:",
      '',
      '| Scenario (limit=100) | service node µs | service PostgreSQL µs | baseline node µs | baseline PostgreSQL µs | node CPU vs baseline | PostgreSQL CPU vs baseline |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows.map(
        ({ name, s, b }) =>
          `| ${label(name)} | ${f(s.nodeUs)} | ${f(s.pgUs)} | ${f(b.nodeUs)} | ${f(b.pgUs)} | ${(s.nodeUs / b.nodeUs).toFixed(2)}x | ${(s.pgUs / b.pgUs).toFixed(2)}x |`,
      ),
      '',
      perItemLine(rows, pageSize),
      '',
      `Load average at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}.`,
      '',
      tr ? `Transcript page of 500 turns (\`/v1/calls/{id}/transcript?limit=500\`, 1 connection): p50 ${tr.p50} ms, p99 ${tr.p99} ms.` : '',
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    // Gone before PostgreSQL stops: a server's connection ended under it would print an unheard 'error' on the way out.
    await Promise.all(children.map(stopChild));
    await stopPg().catch(() => undefined);
  }
}
