#!/usr/bin/env node
/**
 * One firm's bursts against another firm's reads, judged as the attack of issue 44 judged them: firm A sends waves of
 * 150 parallel PATCHes of one lead plus 30 re-processings of one test call (from BURST_TEST_KEYS test keys, each within
 * the test helpers' 4 at once), while firm B's two pollers read their leads. Measured in one run, on api processes of
 * the same build and database, in alternating rounds:
 *
 * - quiet: B's reads alone (before and after each burst);
 * - burst: B's reads during A's waves;
 * - control: B's reads during waves of as many requests, as parallel, to the cheapest route (`GET /v1/health`: no
 *   key, no statement): the share of the machine any burst of that size takes by arriving, whatever limit the
 *   service keeps (the waves' own process runs on the same cores).
 *
 * Against the service with its concurrency limit (CONCURRENT_REQUESTS_PER_KEY, its default unless set) and the same
 * build with the limit out of the way (10,000), each in a process of its own. The judgement: B's p99 during the burst
 * within 2 x its quiet p99 plus the control's share (control p99 - quiet p99). Reported with ratios and the load average.
 *
 *   npm run build && node bench/burst-fairness.bench.mjs
 *
 * Environment (optional): BENCH_DATABASE_URL (default: an embedded PostgreSQL), BURST_ROUNDS (3), BURST_WAVES (4 a
 * phase), BURST_PATCHES (150), BURST_REPROCESS (30), BURST_TEST_KEYS (8), BURST_QUIET_READS (60 a reader),
 * BURST_LIMIT (the limited process's CONCURRENT_REQUESTS_PER_KEY; default: the service's default), BURST_ONLY=limited
 * (skips the process without the limit), BURST_KIND=reads (the waves made of reads: GET a page of
 * 100 calls instead of each PATCH, of 100 leads instead of each re-processing), BENCH_RESULTS_DIR (bench/results).
 * `test/burst-fairness.e2e.spec.ts` runs it and judges what it reports; `npm test` runs nothing else of it.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchDatabase } from './bench-database.mjs';
import { openCli } from './cli-in-process.mjs';
import { quantile } from './quantiles.mjs';
import { startApi } from './service-process.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const num = (name, dflt) => Number(process.env[name] ?? dflt);
const ROUNDS = num('BURST_ROUNDS', 3);
const WAVES = num('BURST_WAVES', 4);
const PATCHES = num('BURST_PATCHES', 150);
const REPROCESS = num('BURST_REPROCESS', 30);
const TEST_KEYS = num('BURST_TEST_KEYS', 8);
const QUIET_READS = num('BURST_QUIET_READS', 60);
const KIND = process.env.BURST_KIND ?? 'writes';
const READERS = 2;
const SECRET = Buffer.alloc(32, 9).toString('base64');
const INTERNAL = 'burst-bench-internal-token';
const log = (line) => process.stderr.write(`${line}\n`);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Firms A and B through the CLI's commands, A's lead and test call, B's leads: the keys and paths the load uses. */
async function seed(env, baseUrl) {
  const cli = await openCli(env);
  const doc = (i) => JSON.stringify({ ...JSON.parse(DOC), started_at: new Date(Date.UTC(2026, 2, 1, 9, i)).toISOString() });
  try {
    const firm = async (name) => (await cli.run(['org', 'create', '--name', name])).id;
    const key = async (org, set, mode = 'live') =>
      (await cli.run(['key', 'create', '--org', org, '--name', set, '--set', set, '--mode', mode])).key;
    const [a, b] = [await firm('Firm A'), await firm('Firm B')];
    // A's calls: one with the lead its PATCHes write, and a page of 100 for the reads' waves.
    await cli.run(['call', 'ingest', '--org', a, '--file', '-'], doc(0));
    await cli.run(['call', 'ingest', '--org', a, '--file', '-'], `[${Array.from({ length: 100 }, (_, i) => doc(i + 1)).join(',')}]`);
    for (let i = 0; i < 5; i++) await cli.run(['call', 'ingest', '--org', b, '--file', '-'], doc(i));
    const writer = await key(a, 'read-update-leads');
    const testKeys = [];
    for (let i = 0; i < TEST_KEYS; i++) testKeys.push(await key(a, 'read', 'test'));
    const reader = await key(b, 'read');
    const leads = await (await fetch(`${baseUrl}/v1/leads?limit=1`, { headers: { authorization: `Bearer ${writer}` } })).json();
    const call = await fetch(`${baseUrl}/v1/test-helpers/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testKeys[0]}`, 'content-type': 'application/json' },
      body: '{}',
    });
    if (call.status !== 201) throw new Error(`the test call: ${call.status} ${await call.text()}`);
    return { writer, testKeys, reader, leadId: leads.leads[0].lead_id, testCallId: (await call.json()).call_id };
  } finally {
    await cli.close();
  }
}

/**
 * The waves (burst-waves.mjs): A's, or for the control as many requests as parallel to the cheapest route there is
 * (`GET /v1/health`, no key, no statement). BURST_KIND=reads sends the same numbers of reads instead (a page of 100
 * calls, a page of 100 leads), which no write turn serialises.
 */
function waves(baseUrl, s, control) {
  const key = s.writer;
  if (control) {
    return sendWaves(baseUrl, [{ method: 'GET', paths: ['/v1/health'], keys: [key], count: PATCHES + REPROCESS }]);
  }
  if (KIND === 'reads') {
    return sendWaves(baseUrl, [
      { method: 'GET', paths: ['/v1/calls?limit=100'], keys: [key], count: PATCHES },
      { method: 'GET', paths: ['/v1/leads?limit=100'], keys: [key], count: REPROCESS },
    ]);
  }
  return sendWaves(baseUrl, [
    { method: 'PATCH', paths: [`/v1/leads/${s.leadId}`], keys: [key], body: { external_id: 'crm-{n}' }, count: PATCHES },
    {
      method: 'POST',
      paths: [`/v1/test-helpers/calls/${s.testCallId}/reprocess`],
      keys: s.testKeys,
      count: REPROCESS,
    },
  ]);
}

function sendWaves(baseUrl, groups) {
  const plan = JSON.stringify({ baseUrl, waves: WAVES, groups });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('burst-waves.mjs', import.meta.url)), plan], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`burst-waves exited ${code}`))));
  });
}

/** B's READERS pollers, one read after another each, for `count` reads each or until `until()` says stop. */
async function reads(baseUrl, key, { count, until }) {
  const ms = [];
  const failed = [];
  await Promise.all(
    Array.from({ length: READERS }, async () => {
      for (let i = 0; count !== undefined ? i < count : !until(); i++) {
        const t0 = performance.now();
        const res = await fetch(`${baseUrl}/v1/leads?limit=5`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        ms.push(performance.now() - t0);
        if (res.status !== 200) failed.push(res.status);
      }
    }),
  );
  return { ms, failed };
}

/** B's reads during A's waves (or the control's): their p99 and A's answers. */
async function during(baseUrl, s, control) {
  let done = false;
  const polling = reads(baseUrl, s.reader, { until: () => done });
  const sent = await waves(baseUrl, s, control).finally(() => (done = true));
  const r = await polling;
  return { p99: quantile(r.ms, 0.99), reads: r.ms.length, failed: r.failed, statuses: sent.statuses, seconds: sent.seconds };
}

/** One round on one process: quiet, burst, quiet, control (the quiet p99 from both quiet runs). */
async function round(server, s) {
  await reads(server.baseUrl, s.reader, { count: 10 }); // warm: connections open, statements prepared
  const before = await reads(server.baseUrl, s.reader, { count: QUIET_READS });
  const burst = await during(server.baseUrl, s, false);
  const after = await reads(server.baseUrl, s.reader, { count: QUIET_READS });
  const control = await during(server.baseUrl, s, true);
  const quietP99 = quantile([...before.ms, ...after.ms], 0.99);
  const bound = 2 * quietP99 + Math.max(0, control.p99 - quietP99);
  const r = { name: server.name, load: load(), quietP99, burst, control, bound, within: burst.p99 <= bound, ratio: burst.p99 / quietP99 };
  r.failedReads = [...before.failed, ...after.failed, ...burst.failed, ...control.failed];
  log(
    `${server.name}: B p99 quiet ${quietP99.toFixed(0)} ms, burst ${burst.p99.toFixed(0)} ms (${r.ratio.toFixed(2)}x, ${burst.reads} reads), ` +
      `control ${control.p99.toFixed(0)} ms; bound ${bound.toFixed(0)} ms: ${r.within ? 'within' : 'OVER'}; A ${JSON.stringify(burst.statuses)}; load ${r.load}`,
  );
  return r;
}

const DOC = (await import('node:fs')).readFileSync(new URL('soak-call-document.json', import.meta.url), 'utf8');

async function main() {
  const started = load();
  const db = await benchDatabase('burst');
  const env = {
    DATABASE_URL: db.databaseUrl,
    WEBHOOK_SECRET_KEY: SECRET,
    INTERNAL_API_TOKEN: INTERNAL,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '100000',
  };
  const servers = [];
  try {
    const limited = await startApi(process.env.BURST_LIMIT ? { ...env, CONCURRENT_REQUESTS_PER_KEY: process.env.BURST_LIMIT } : env);
    servers.push({ name: 'limited', ...limited });
    if (process.env.BURST_ONLY !== 'limited')
      servers.push({ name: 'unlimited', ...(await startApi({ ...env, CONCURRENT_REQUESTS_PER_KEY: '10000' })) });
    const s = await seed(env, limited.baseUrl);
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) for (const server of i % 2 ? [...servers].reverse() : servers) rounds.push(await round(server, s));
    report(rounds, started);
  } finally {
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.all(servers.map((server) => new Promise((r) => (server.child.exitCode !== null ? r() : server.child.once('exit', r)))));
    await db.stop();
  }
}

function report(rounds, startLoad) {
  const names = [...new Set(rounds.map((r) => r.name))];
  const median = (xs) => quantile(xs, 0.5);
  const rows = names.map((name) => {
    const mine = rounds.filter((r) => r.name === name);
    return {
      name,
      rounds: mine.length,
      within: mine.filter((r) => r.within).length,
      ratio: median(mine.map((r) => r.ratio)),
      controlRatio: median(mine.map((r) => r.control.p99 / r.quietP99)),
    };
  });
  console.log(
    `Load average at the start: ${startLoad}; at the end: ${load()}. ${WAVES} waves a phase of ${KIND === 'reads' ? `${PATCHES} + ${REPROCESS} reads` : `${PATCHES} PATCHes + ${REPROCESS} re-processings (${TEST_KEYS} test keys)`}.\n`,
  );
  console.log(
    '| round | process | B quiet p99 ms | B burst p99 ms | burst / quiet | B control p99 ms | bound ms | within | A answers | load |',
  );
  console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |');
  rounds.forEach((r, i) => {
    const answers = Object.entries(r.burst.statuses)
      .map(([k, v]) => `${v}x ${k}`)
      .join(', ');
    console.log(
      `| ${i + 1} | ${r.name} | ${r.quietP99.toFixed(0)} | ${r.burst.p99.toFixed(0)} | ${r.ratio.toFixed(2)}x | ${r.control.p99.toFixed(0)} | ${r.bound.toFixed(0)} | ${r.within ? 'yes' : 'no'} | ${answers} | ${r.load} |`,
    );
  });
  console.log('\n| process | rounds within the bound | median burst / quiet | median control / quiet |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.name} | ${r.within} of ${r.rounds} | ${r.ratio.toFixed(2)}x | ${r.controlRatio.toFixed(2)}x |`);
  const dir = process.env.BENCH_RESULTS_DIR
    ? pathToFileURL(`${process.env.BENCH_RESULTS_DIR}/`)
    : new URL('bench/results/', pathToFileURL(root));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    new URL(`burst-fairness-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, dir),
    JSON.stringify({ rounds, summary: rows, load: { start: startLoad, end: load() } }, null, 2),
  );
}

await main();
