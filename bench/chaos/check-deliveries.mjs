import { DISPATCH_CONCURRENCY, LEASE_S, SEND_DEADLINE_S } from './settings.mjs';

/** Slack for comparing times taken by different processes of one machine (one clock, different moments of reading it). */
const SLACK_MS = 1000;
const success = (a) => a.status_code >= 200 && a.status_code < 300;

/**
 * Per endpoint, from the toggler's timeline: `off` when surely off (the disable
 * command had returned, the enable had not started), `maybeOff` from the start of
 * the disable command to the end of the enable command.
 */
function offWindows(toggles, endpointId) {
  return toggles.filter((t) => t.endpointId === endpointId);
}
const surelyOff = (ws, at) => ws.some((w) => at > w.disableEnd + SLACK_MS && at < (w.enableStart ?? Infinity) - SLACK_MS);
const maybeOff = (ws, at) => ws.some((w) => at >= w.disableStart - SLACK_MS && at <= (w.enableEnd ?? Infinity) + SLACK_MS);

/**
 * Every event reached every subscribed endpoint at least once: each event has
 * one 'event' delivery per subscribed endpoint of its firm; a succeeded delivery
 * was received (signed with that endpoint's secret); a failed one is explained by
 * the endpoint being off (then with no attempt when it was off at the event's
 * time); nothing is pending after the drain. Duplicates (receipts beyond one
 * per succeeded delivery) are counted; sends whose result was never recorded
 * (a killed worker, the database down) are bounded, and each was sent again
 * only after its lease.
 */
export function checkDeliveries({ events, endpoints, deliveries, receipts, toggles, kills, outages }) {
  const violations = [];
  const counts = {
    deliveries: deliveries.length,
    by_trigger: {},
    by_status: {},
    receipts: receipts.length,
    missed_while_off: 0,
    closed_by_disable: 0,
    duplicates: 0,
    unrecorded_sends: 0,
  };
  const tagOf = new Map(endpoints.map((e) => [e.id, e.tag]));
  const received = new Map();
  const times = new Map();
  for (const r of receipts) {
    if (!r.signed) violations.push(`a delivery of ${r.id} to ${r.tag} did not verify with the endpoint's secret`);
    const k = `${r.tag}/${r.id}`;
    received.set(k, (received.get(k) ?? 0) + 1);
    times.set(k, [...(times.get(k) ?? []), r.at]);
  }
  const pairs = new Map();
  for (const d of deliveries) {
    counts.by_trigger[d.trigger] = (counts.by_trigger[d.trigger] ?? 0) + 1;
    counts.by_status[d.status] = (counts.by_status[d.status] ?? 0) + 1;
    const k = `${tagOf.get(d.endpoint_id)}/${d.event_id}`;
    const pair = pairs.get(k) ?? { succeeded: 0, attempts: 0, failedAttempts: 0, fanOuts: 0, others: 0 };
    if (d.status === 'succeeded') pair.succeeded++;
    pair.attempts += d.attempts.length;
    pair.failedAttempts += d.attempts.filter((a) => !success(a)).length;
    if (d.trigger === 'event') pair.fanOuts++;
    else pair.others++;
    pairs.set(k, pair);
    const ws = offWindows(toggles, d.endpoint_id);
    if (d.status === 'pending')
      violations.push(`delivery ${d.id} (${d.event_type} to ${tagOf.get(d.endpoint_id)}) is still pending after the drain`);
    else if (d.status === 'succeeded' && !(received.get(k) > 0))
      violations.push(`delivery ${d.id} succeeded but ${tagOf.get(d.endpoint_id)} never received ${d.event_id}`);
    else if (d.status === 'failed') {
      if (!maybeOff(ws, d.completed_ms))
        violations.push(
          `delivery ${d.id} (${d.event_type}) failed while ${tagOf.get(d.endpoint_id)} was on: ${JSON.stringify(d.attempts.at(-1) ?? null)}`,
        );
      else if (d.attempt_count === 0 && d.completed_ms === d.created_ms) counts.missed_while_off++;
      else counts.closed_by_disable++;
    }
  }
  const fannedOut = new Map(deliveries.filter((d) => d.trigger === 'event').map((d) => [`${d.endpoint_id}/${d.event_id}`, d]));
  for (const e of events.filter((x) => x.type !== 'webhook.test')) {
    for (const ep of endpoints.filter((x) => x.org_id === e.org_id && x.event_types.includes(e.type))) {
      const pair = pairs.get(`${ep.tag}/${e.id}`);
      if (!pair || pair.fanOuts !== 1)
        violations.push(`event ${e.id} (${e.type}) has ${pair?.fanOuts ?? 0} deliveries to ${ep.tag}, not 1`);
      const d = fannedOut.get(`${ep.id}/${e.id}`);
      if (d && surelyOff(offWindows(toggles, ep.id), e.occurred_ms) && !(d.status === 'failed' && d.attempt_count === 0)) {
        violations.push(`event ${e.id} came while ${ep.tag} was off, yet its delivery is ${d.status} with ${d.attempt_count} attempts`);
      }
    }
  }
  for (const [k, n] of received) {
    const pair = pairs.get(k);
    if (!pair) violations.push(`${k} was received but no delivery of it exists`);
    else {
      // What the receiver saw twice, and what was sent without its result ever being recorded.
      counts.duplicates += Math.max(0, n - pair.succeeded);
      counts.unrecorded_sends += Math.max(0, n - pair.attempts);
      if (n > pair.attempts && pair.others === 0 && pair.failedAttempts === 0) checkResend(k, times.get(k), kills, outages, violations);
    }
  }
  // At least once, as docs/architecture.md states it: a send is repeated only when its result was not
  // recorded, i.e. its worker was killed or the database was down; each such incident can leave at most
  // what a worker holds unrecorded (its sends plus twice as many awaiting record: 3 x concurrency) per worker.
  const workerKills = kills.filter((k) => k.role === 'worker').length;
  counts.duplicate_bound = (workerKills + 2 * outages.length) * 3 * DISPATCH_CONCURRENCY;
  if (counts.duplicates > counts.duplicate_bound)
    violations.push(`${counts.duplicates} duplicate receipts exceed the at-least-once bound ${counts.duplicate_bound}`);
  return { name: 'every event reached every subscribed endpoint at least once', counts, violations };
}

/**
 * No delivery went to an endpoint after it was disabled: no POST reached its
 * receiver later than SEND_DEADLINE_S after the disable command returned (the
 * commit is before that) and before the enable command started. POSTs that
 * arrived in that allowance were sends already under way; they are counted.
 */
export function checkDisabled({ endpoints, receipts, toggles }) {
  const violations = [];
  const counts = { disables: toggles.length, in_flight_at_disable: 0, max_lag_after_disable_ms: 0 };
  const tagOf = new Map(endpoints.map((e) => [e.id, e.tag]));
  for (const w of toggles) {
    const tag = tagOf.get(w.endpointId);
    const until = w.enableStart ?? Infinity;
    for (const r of receipts.filter((x) => x.tag === tag && x.at > w.disableEnd && x.at < until)) {
      const lag = r.at - w.disableEnd;
      counts.max_lag_after_disable_ms = Math.max(counts.max_lag_after_disable_ms, lag);
      if (lag <= SEND_DEADLINE_S * 1000) counts.in_flight_at_disable++;
      else violations.push(`${tag} received ${r.id} ${lag} ms after it was disabled`);
    }
  }
  return { name: 'no delivery went to an endpoint after it was disabled', counts, violations };
}

/**
 * A delivery of one event to one endpoint received twice (no test or redelivery of it) was sent again
 * only after its lease ran out (the claim precedes the first send, which reaches the receiver within the
 * send deadline), and only because a worker was killed or the database was down in between.
 */
function checkResend(k, at, kills, outages, violations) {
  const sorted = [...at].sort((a, b) => a - b);
  for (let i = 1; i < sorted.length; i++) {
    const [first, again] = [sorted[i - 1], sorted[i]];
    if (again - first < (LEASE_S - SEND_DEADLINE_S) * 1000)
      violations.push(`${k} was received again ${again - first} ms later, before the lease ran out`);
    const killed = kills.some((x) => x.role === 'worker' && x.at >= first - SEND_DEADLINE_S * 1000 && x.at <= again);
    const down = outages.some((o) => o.stopStart <= again && (o.upAt ?? Infinity) >= first - SEND_DEADLINE_S * 1000);
    if (!killed && !down) violations.push(`${k} was received again with no worker killed and no outage in between`);
  }
}
