#!/usr/bin/env node
/**
 * Chaos: two api and two worker processes (the compiled service, ROLE=api / ROLE=worker) on one
 * PostgreSQL and one S3 server (s3rver), under a steady mix from several firms' keys (lists and
 * details of calls and leads, transcripts, recordings and recording links, PATCHes including
 * several clients racing on one lead, ingestion with re-processing and recording uploads through
 * the internal route, test events and redeliveries to local webhook receivers), while a process is
 * SIGKILLed every 10 to 20 s (roles in turn; one process of each role is kept for the whole run so
 * its RSS can be judged) and a new one of its role started, PostgreSQL is stopped
 * and started every 2 minutes, and webhook endpoints are disabled and enabled through the CLI's commands (run in
 * this process, bench/cli-in-process.mjs).
 * Then an invariant checker (bench/chaos/check-*.mjs) reads the database and the receivers' logs
 * and proves nothing was lost; each invariant is printed with its counts.
 *
 *   npm run bench:chaos          (or: npm run build && node bench/chaos.bench.mjs)
 *
 * Environment (bench/chaos/settings.mjs): CHAOS_DURATION (10m), CHAOS_UNTIL (stop once each named count is
 * reached, e.g. api_kills=2,worker_kills=2,outages=2,disables=3,requests=1500; CHAOS_DURATION is then the cap), CHAOS_KILL_MIN / CHAOS_KILL_MAX
 * (10 / 20 s), CHAOS_PG_EVERY (120 s), CHAOS_PG_DOWN (5 s), CHAOS_TOGGLE_EVERY (20 s),
 * CHAOS_CONCURRENCY (12), CHAOS_FIRMS (3), CHAOS_DRAIN (120 s), CHAOS_RESULT_FILE, CHAOS_NODE_OPTIONS
 * (NODE_OPTIONS of the service processes; default --max-old-space-size=128, '' for none). Loopback only.
 * Exits 1 with the violations listed when any invariant fails.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChaosPostgres, LOG_DIR, serviceEnv, startS3 } from './chaos/cluster.mjs';
import { ChaosClient } from './chaos/client.mjs';
import { Fleet } from './chaos/fleet.mjs';
import { Mirror } from './chaos/mirror.mjs';
import { startReceivers } from './chaos/receivers.mjs';
import { openCli } from './cli-in-process.mjs';
import { seedFirm } from './chaos/seed.mjs';
import { chaosSettings } from './chaos/settings.mjs';
import { parseGoals, RunLength } from './chaos/run-length.mjs';
import { newLedger, operations, runTraffic } from './chaos/traffic.mjs';
import { checkAll, drain } from './chaos/verdict.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const log = (line) => process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function seed(settings, cli, receivers, http, ledger) {
  log(`seeding ${settings.firms} firms through the CLI's commands...`);
  const firms = [];
  for (let n = 0; n < settings.firms; n++) firms.push(await seedFirm(n, cli, receivers));
  const ops = new Map(operations(http, ledger, settings).map(([name, , run]) => [name, run]));
  for (const firm of firms) {
    while (firm.leads.length < 6) await ops.get('ingest')(firm);
    firm.calls.forEach((c) => (c.complete = true));
    while (firm.recorded.length < 2) await ops.get('recording upload')(firm);
  }
  return firms;
}

async function run(settings, db, receivers) {
  const s3 = await startS3();
  const dataDir = mkdtempSync(join(tmpdir(), 'chaos-data-'));
  const env = serviceEnv(db.url, s3.env, dataDir);
  const cli = await openCli(env);
  const fleet = new Fleet(env, db, log, cli);
  let finished = false;
  try {
    log(`starting two api and two worker processes (their logs: ${LOG_DIR})...`);
    // One process of each role lives through the whole run (its RSS is judged); the other is the one killed.
    await Promise.all([fleet.add('api', true), fleet.add('api'), fleet.add('worker', true), fleet.add('worker')]);
    const http = new ChaosClient(fleet);
    const ledger = newLedger();
    const firms = await seed(settings, cli, receivers, http, ledger);
    const mirrors = firms.map((f) => new Mirror(http, f));
    const started = Date.now();
    const runLength = new RunLength(settings.durationS, parseGoals(settings.until), { fleet, http });
    const goals = settings.until ? ` (or until ${settings.until})` : '';
    log(`chaos for ${settings.durationS} s${goals} at ${settings.concurrency} requests in flight...`);
    const sampler = fleet.sampleLoop(() => finished);
    const loadSamples = [];
    const loadTimer = setInterval(() => loadSamples.push(loadavg()[0]), 10_000);
    await Promise.all([
      runTraffic(operations(http, ledger, settings), firms, settings.concurrency, runLength, (op, err) => log(`${op}: ${err.message}`)),
      ...mirrors.map((m) => m.poll(runLength)),
      fleet.killLoop(runLength, settings.killMinS, settings.killMaxS),
      fleet.outageLoop(runLength, settings.pgEveryS, settings.pgDownS),
      fleet.toggleLoop(
        runLength,
        settings.toggleEveryS,
        firms.flatMap((f) => f.endpoints),
      ),
    ]);
    clearInterval(loadTimer);
    const elapsedS = (Date.now() - started) / 1000;
    log(
      `traffic and faults stopped after ${elapsedS.toFixed(1)} s (ended by ${runLength.endedBy}): ${JSON.stringify(runLength.observed())}`,
    );
    await Promise.allSettled([...fleet.starting]);
    log('draining deliveries...');
    const drained = await drain(db.url, settings.drainS);
    for (const m of mirrors) await m.finish();
    for (const p of fleet.processes) fleet.sample(p);
    finished = true;
    await sampler;
    const verdict = await checkAll({ db, firms, fleet, http, ledger, mirrors, receivers, judgeRss: !settings.until });
    return { elapsedS, drained, verdict, firms, fleet, http, loadSamples, runLength: runLength.report() };
  } finally {
    finished = true;
    await cli.close();
    await fleet.stopAll();
    await s3.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function summary(settings, r) {
  return {
    settings,
    seconds: +r.elapsedS.toFixed(1),
    run_length: r.runLength,
    drain_s: r.drained,
    requests: r.http.answers.length,
    requests_per_s: +(r.http.answers.length / r.elapsedS).toFixed(1),
    kills: { api: r.fleet.kills.filter((k) => k.role === 'api').length, worker: r.fleet.kills.filter((k) => k.role === 'worker').length },
    outages: r.fleet.outages.map((o) => +((o.upAt - o.stopStart) / 1000).toFixed(1)),
    endpoint_disables: r.fleet.toggles.length,
    checks: r.verdict.map((c) => ({
      name: c.name,
      ok: c.violations.length === 0,
      counts: c.counts,
      violations: c.violations.slice(0, 50),
    })),
    violations: r.verdict.reduce((n, c) => n + c.violations.length, 0),
    machine: {
      cpus: cpus().length,
      loadavg_1m_during: r.loadSamples.map((x) => +x.toFixed(2)),
      loadavg_end: loadavg().map((x) => +x.toFixed(2)),
      node: process.version,
    },
  };
}

async function main() {
  const settings = chaosSettings();
  parseGoals(settings.until); // a mistyped CHAOS_UNTIL stops the run before anything starts
  const db = await ChaosPostgres.start();
  const receivers = await startReceivers();
  try {
    const result = summary(settings, await run(settings, db, receivers));
    for (const c of result.checks)
      log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${JSON.stringify(c.counts)}${c.ok ? '' : `\n  ${c.violations.join('\n  ')}`}`);
    console.log(JSON.stringify(result, null, 2));
    if (settings.resultFile !== '-') {
      const file = settings.resultFile || join(root, `bench/results/chaos-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, JSON.stringify(result, null, 2));
    }
    // The services' logs are kept only when something failed (their error_ids explain a 500).
    if (result.violations === 0) rmSync(LOG_DIR, { recursive: true, force: true });
    log(`${result.violations} violations${result.violations === 0 ? '' : `; the services' logs are in ${LOG_DIR}`}`);
    return result.violations === 0 ? 0 : 1;
  } finally {
    await receivers.close();
    if (!db.running) await db.startServer().catch(() => undefined);
    await db.stopServer();
    db.remove();
  }
}

// Explicitly: the embedded PostgreSQL's exit hooks must not decide the exit code.
process.exit(
  await main().catch((err) => {
    log(`the run failed: ${err?.stack ?? err}`);
    return 2;
  }),
);
