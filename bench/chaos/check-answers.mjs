import { allowed4xx } from './traffic.mjs';
import { STATEMENT_TIMEOUT_S } from './settings.mjs';

/** After PostgreSQL is back, pools reconnect on their next use; a statement queued in the outage may still time out. */
export const AFTER_OUTAGE_MS = (STATEMENT_TIMEOUT_S + 5) * 1000;

/**
 * Every answer was a 2xx, a 4xx the spec allows for that request, or a 503 with
 * Retry-After during an outage (from the stop of PostgreSQL to AFTER_OUTAGE_MS
 * after it served again); a request that got no answer must have gone to a
 * process that was killed while (or before) it was sent. Counted by kind and status.
 */
export function checkAnswers({ answers, outages }) {
  const violations = [];
  const counts = { requests: answers.length, by_op: {}, killed_process: 0, outage_503: 0, conflicts_409: 0, rate_limited_429: 0 };
  const inOutage = (a) => outages.some((o) => a.t1 >= o.stopStart && a.t0 <= (o.upAt ?? Infinity) + AFTER_OUTAGE_MS);
  for (const a of answers) {
    const byOp = (counts.by_op[a.op] ??= {});
    const label = a.status === 0 ? `no answer (${a.error})` : String(a.status);
    byOp[label] = (byOp[label] ?? 0) + 1;
    const where = `${a.op} at ${new Date(a.t0).toISOString()}`;
    if (a.status === 0) {
      if (a.target.killedAt !== undefined && a.target.killedAt <= a.t1 + 2000) counts.killed_process++;
      else violations.push(`${where}: no answer (${a.error}) from a process that was not killed`);
    } else if (a.status === 503) {
      if (!a.retryAfter) violations.push(`${where}: 503 without Retry-After`);
      else if (!inOutage(a)) violations.push(`${where}: 503 outside an outage`);
      else counts.outage_503++;
    } else if (a.status >= 500) violations.push(`${where}: ${a.status} ${a.code ?? ''}`);
    else if (a.status >= 400) {
      if (!allowed4xx(a.op).includes(`${a.status} ${a.code}`))
        violations.push(`${where}: ${a.status} ${a.code}, which the spec does not allow for this request`);
      else if (a.status === 429 && !a.retryAfter) violations.push(`${where}: 429 without Retry-After`);
      else if (a.status === 409) counts.conflicts_409++;
      else counts.rate_limited_429++;
    }
  }
  return { name: 'every answer was a 2xx, an allowed 4xx, or a 503 with Retry-After in an outage', counts, violations };
}

const ms = (iso) => (iso === null || iso === undefined ? null : Date.parse(iso));

/** The mirror built with updated_since / as_of equals the database: the same ids, and the same values where they can differ. */
export function checkMirror({ mirrors, calls, leads }) {
  const violations = [];
  const counts = { calls: calls.length, leads: leads.length, runs: 0, abandoned_runs: 0 };
  for (const m of mirrors) {
    for (const kind of ['calls', 'leads']) {
      counts.runs += m.state[kind].runs;
      counts.abandoned_runs += m.state[kind].abandoned;
    }
    const compare = (kind, rows, idKey, fields) => {
      const items = m.state[kind].items;
      const mine = rows.filter((r) => r.org_id === m.firm.orgId);
      if (items.size !== mine.length)
        violations.push(`firm ${m.firm.n}: the mirror holds ${items.size} ${kind}, the database ${mine.length}`);
      for (const row of mine) {
        const item = items.get(row[idKey]);
        if (!item) {
          violations.push(`firm ${m.firm.n}: ${row[idKey]} is missing from the mirror`);
          continue;
        }
        for (const [field, value] of Object.entries(fields(row))) {
          const got = field === 'updated_at' ? ms(item[field]) : item[field];
          if (got !== value) violations.push(`firm ${m.firm.n}: ${row[idKey]}.${field} is ${got} in the mirror, ${value} in the database`);
        }
      }
    };
    compare('calls', calls, 'call_id', (r) => ({
      updated_at: r.updated_ms,
      has_recording: r.has_recording,
      lead_id: r.lead_id,
      processing_complete: r.processing_complete,
    }));
    compare('leads', leads, 'lead_id', (r) => ({
      updated_at: r.updated_ms,
      status: r.status,
      external_id: r.external_id,
      status_reason: r.status_reason,
    }));
  }
  return { name: 'the updated_since/as_of mirror equals the database', counts, violations };
}

/**
 * No process's RSS grew beyond noise. Judged in a run of fixed length (CHAOS_DURATION, no CHAOS_UNTIL goals) on every
 * service process that lived at least RSS_MIN_LIFE_S (in a full run, the api and the worker kept through it); a run
 * ended by goals judges none, however long a busy machine took to meet them (a short run that took 449 s at load 20
 * judged its api by how V8 grows a heap under sustained load, not by a leak): after RSS_WARMUP_S of life (JIT, pools, caches),
 * the median of its last five samples (5 s apart) may exceed the median of its
 * first five by at most max(RSS_BOUND_MIB, RSS_BOUND_SHARE of that first median).
 */
export const RSS_WARMUP_S = 30;
export const RSS_MIN_LIFE_S = 300;
export const RSS_BOUND_MIB = 40;
export const RSS_BOUND_SHARE = 0.25;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function checkRss({ processes, judge }) {
  const violations = [];
  const counts = { processes: processes.length, judged: 0, per_process: [] };
  for (const p of processes) {
    const samples = p.samples.filter((s) => s.t - p.startedAt >= RSS_WARMUP_S * 1000);
    const life = (p.samples.at(-1)?.t ?? p.startedAt) - p.startedAt;
    const row = {
      role: p.role,
      pid: p.pid,
      kept: p.watched,
      killed: p.killedAt !== undefined,
      life_s: Math.round(life / 1000),
      start_mib: round(p.samples[0]?.mib),
      end_mib: round(p.samples.at(-1)?.mib),
      max_mib: round(Math.max(...p.samples.map((s) => s.mib))),
    };
    // The whole series of a kept process, to see the shape of a growth (steady, stepped at outages, levelling off).
    if (p.watched) row.samples_mib = p.samples.map((x) => round(x.mib));
    counts.per_process.push(row);
    if (!judge || life < RSS_MIN_LIFE_S * 1000 || samples.length < 10) continue;
    counts.judged++;
    const first = median(samples.slice(0, 5).map((s) => s.mib));
    const last = median(samples.slice(-5).map((s) => s.mib));
    row.growth_mib = round(last - first);
    const bound = Math.max(RSS_BOUND_MIB, RSS_BOUND_SHARE * first);
    if (last - first > bound)
      violations.push(
        `${p.role} ${p.pid}: RSS grew ${round(last - first)} MiB (from ${round(first)} to ${round(last)}), over ${round(bound)}`,
      );
  }
  return { name: 'no process grew beyond noise', counts, violations };
}
const round = (x) => (x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10) / 10);

/**
 * Every process the run did not kill was still running when traffic stopped: one that exited by itself (a crash, V8
 * out of memory) is named with its exit and the end of its stderr, which is kept beside its log.
 */
export function checkExits({ processes }) {
  const violations = [];
  const counts = { processes: processes.length, killed: 0, exited_by_themselves: 0 };
  for (const p of processes) {
    if (p.killedAt !== undefined) counts.killed++;
    else if (p.exit !== undefined) {
      counts.exited_by_themselves++;
      const life = ((p.exit.at - p.startedAt) / 1000).toFixed(1);
      const tail = p.stderr().trim().split('\n').slice(-12).join('\n    ');
      violations.push(
        `${p.role} ${p.pid}${p.watched ? ' (kept)' : ''} exited by itself after ${life} s (code ${p.exit.code}, signal ${p.exit.signal}); its stderr ended:\n    ${tail}`,
      );
    }
  }
  return { name: 'no process exited unless the run killed it', counts, violations };
}
