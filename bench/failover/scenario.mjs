import { INTERNAL_TOKEN } from './cluster-run.mjs';
import { Answers, CallsPoller, EventsReader, httpClient, ingestLoop, newLedger, patchLoop } from './traffic.mjs';
import { judge } from './verdict.mjs';

const pause = (ms) => new Promise((r) => setTimeout(r, ms));
/** The stale scenario's reads while the address is back on the old primary (judged apart: all must be 503). */
const FENCED_READ = 'fenced read';

/**
 * The scenarios, in the order the run plays them on one lineage of servers (each promotion's server is the next
 * one's primary):
 * - sync: a synchronous standby; the primary fails, the standby is promoted, the address switches. Nothing a
 *   client was told is lost.
 * - async: an asynchronous standby a little behind (`lagMs`), whose link stops carrying anything `holdMs` before
 *   the primary fails: those commits are lost, and readers were given some. They are told (after_lost) and
 *   skip nothing the promoted database has.
 * - stale: as async, and the old primary comes back as a normal server, the address left on it for `staleS` (an
 *   old DNS answer) before it moves to the promoted one; then the address goes back to the old primary for a
 *   moment, and every process, having seen the newer history, refuses it (503).
 * - async-wait: as async, with EVENTS_WAIT_FOR_STANDBY=true: no reader or receiver is given an event the promotion
 *   loses. The promoted server gets a standby of its own, so events flow again.
 */
export const SCENARIOS = {
  sync: { sync: true, hold: false, stale: false, waitForStandby: false, rules: { nothingAcknowledgedLost: true } },
  async: { sync: false, hold: true, stale: false, waitForStandby: false, rules: { afterLostSeen: true } },
  stale: { sync: false, hold: true, stale: true, waitForStandby: false, rules: { afterLostSeen: true } },
  'async-wait': { sync: false, hold: true, stale: false, waitForStandby: true, rules: { nothingGivenLost: true } },
};

/** Plays one scenario on `run` (its primary streaming to a new standby) and judges it. */
export async function playScenario(run, name, settings) {
  const spec = SCENARIOS[name];
  const standbyName = `pg_${run.nodes.length}`;
  const { standby, link } = await run.standby(standbyName, { lagMs: spec.sync ? 0 : settings.lagMs, sync: spec.sync });
  await run.services({ EVENTS_WAIT_FOR_STANDBY: String(spec.waitForStandby) });
  const firm = await run.firm(name.replace(/[^a-z]/g, ''));
  const durability = { before: await readiness(run) };
  const answers = new Answers();
  const request = httpClient(run.api.baseUrl, INTERNAL_TOKEN, answers);
  const ledger = newLedger();
  const readers = ['a', 'b', 'c'].map((n) => new EventsReader(n, firm, request));
  const poller = new CallsPoller(firm, request);
  const receiptsBefore = run.receivers.log.length;
  let running = true;
  const loops = [
    ingestLoop(firm, request, ledger, () => running),
    ingestLoop(firm, request, ledger, () => running),
    patchLoop(firm, request, ledger, () => running),
    ...readers.map((r) => r.follow(() => running)),
    poller.follow(() => running),
  ];
  run.log(`${name}: ${settings.beforeS} s of traffic on ${run.primary.name}, then it fails`);
  await pause(settings.beforeS * 1000);
  if (spec.hold) {
    link.hold();
    await pause(settings.holdMs);
  }
  const old = run.primary;
  const failedAt = Date.now();
  await old.crash();
  const crashedAt = Date.now();
  await link.close();
  const promotingAt = Date.now();
  await standby.promote();
  const promotion = { crash_ms: crashedAt - failedAt, link_close_ms: promotingAt - crashedAt, promote_ms: Date.now() - promotingAt };
  run.primary = standby;
  const stale = spec.stale ? await staleAddress(run, old, settings) : null;
  run.proxy.switchTo(standby.port);
  const switchedAt = Date.now();
  run.log(`${name}: ${standby.name} promoted (${JSON.stringify(promotion)}), the address moved to it`);
  if (spec.waitForStandby) {
    // The promoted server has no standby yet: events wait, and readiness and the metric say why.
    durability.without_standby = { ...(await readiness(run)), publication_blocked: await blockedGauge(run) };
    await run.standby(`pg_${run.nodes.length}`);
    durability.with_new_standby = await readiness(run);
  }
  await pause(settings.afterS * 1000);
  const judgedUntil = Date.now();
  const fenced = spec.stale ? await staleAgain(run, old, firm, request) : null;
  running = false;
  await Promise.all(loops);
  await drain(run, firm, readers, poller, settings);
  const receipts = run.receivers.log.slice(receiptsBefore).filter((r) => r.tag === firm.tag);
  const verdict = await judge({
    scenario: name,
    db: run.primary,
    firm,
    answers,
    readers,
    poller,
    receipts,
    ledger,
    processes: run.processes,
    switchedAt,
    judgedUntil,
    rules: spec.rules,
  });
  verdict.figures.promotion = promotion;
  verdict.figures.durability = durability;
  if (stale) verdict.figures.stale = { ...stale, ...fenced };
  if (fenced && fenced.served_from_stale > 0)
    verdict.violations.push(`served ${fenced.served_from_stale} answers from a stale primary after seeing the newer history`);
  return verdict;
}

/** The old primary restarted as a normal server, and the address left on it for `staleS`. */
async function staleAddress(run, old, settings) {
  await old.start();
  run.proxy.switchTo(old.port);
  run.log(`stale: ${old.name} is back as a normal server; the address stays on it ${settings.staleS} s`);
  await pause(settings.staleS * 1000);
  return { seconds: settings.staleS };
}

/**
 * After the processes have seen the promoted server's history, the address goes back to the old primary for two
 * seconds: every answer that needs the database must be a 503, none served from the old history.
 */
async function staleAgain(run, old, firm, request) {
  if (!old.running) await old.start();
  run.proxy.switchTo(old.port);
  const statuses = [];
  for (const until = Date.now() + 2_000; Date.now() < until;) {
    statuses.push((await request(FENCED_READ, 'GET', '/v1/calls?limit=1', { key: firm.readerKey })).status);
    await pause(50);
  }
  run.proxy.switchTo(run.primary.port);
  await old.stop();
  return {
    fenced_answers: statuses.filter((s) => s === 503).length,
    served_from_stale: statuses.filter((s) => s >= 200 && s < 300).length,
  };
}

/** After the traffic: readers catch up, the poller passes once more, deliveries are sent (bounded). */
async function drain(run, firm, readers, poller, settings) {
  const deadline = Date.now() + settings.drainS * 1000;
  for (;;) {
    const [{ n }] = await run.primary.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE org_id = $1 AND status = 'pending'`, [
      firm.orgId,
    ]);
    if (n === 0 || Date.now() > deadline) break;
    await pause(200);
  }
  await Promise.all(readers.map((r) => r.catchUp(deadline)));
  await poller.pass();
}

/** What GET /health/ready says of replication: {status, synchronous, standbys, ...}. */
async function readiness(run) {
  for (const until = Date.now() + 5_000; ; await pause(100)) {
    const body = await (await fetch(`${run.api.baseUrl}/health/ready`)).json();
    // Right after a switch the process may still be reconnecting (503): ask again.
    if (body.status !== 'error' || Date.now() > until) return { overall: body.status, ...body.details?.replication };
  }
}

/** events_publication_blocked as the api process reports it (polled: it notices within one horizon tick). */
async function blockedGauge(run) {
  for (const until = Date.now() + 5_000; ; await pause(50)) {
    const text = await (await fetch(`${run.api.baseUrl}/metrics`)).text();
    const value = Number(/^events_publication_blocked (\d+)/m.exec(text)?.[1] ?? NaN);
    if (value === 1 || Date.now() > until) return value;
  }
}
