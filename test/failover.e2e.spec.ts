import { runBenchInGroup } from './support/bench-in-group';

/**
 * The failover bench, short (bench/failover.bench.mjs): a real primary, real streaming standbys (PostgreSQL's own
 * binaries, a low-level base backup each, a replication slot), a switchable address, the compiled service as an
 * `api` and a `worker` process, and traffic (ingestion, lead PATCHes, three GET /v1/events?wait= readers, a calls
 * poller, a webhook receiver) through four failovers of one lineage of servers:
 * - sync: nothing acknowledged is lost;
 * - async: the standby's link carries nothing for the last 0.7 s, so the promotion loses commits readers were given;
 *   they are told (after_lost) and skip nothing the promoted database has;
 * - stale: the same, with the old primary back behind the address for 3 s before it moves; afterwards the processes
 *   refuse the old primary (503);
 * - async-wait: the same loss with EVENTS_WAIT_FOR_STANDBY=true: no reader or receiver is given a lost event.
 * In every one: no 500, every 503 with Retry-After, no process exit, the as_of poller misses nothing, every kept
 * event is delivered.
 */
const SHORT_RUN = {
  FAILOVER_BEFORE_S: '2',
  FAILOVER_AFTER_S: '2',
  FAILOVER_HOLD_MS: '700',
  FAILOVER_LAG_MS: '200',
  FAILOVER_STALE_S: '3',
  FAILOVER_DRAIN_S: '60',
  FAILOVER_RESULT_FILE: '-',
};

interface Figures {
  acknowledged_lost: { calls: number; lead_changes: number };
  readers: { name: string; received: number; skipped: number; given_lost: number; after_lost: number }[];
  deliveries: { received: number; given_lost: number; undelivered: number };
  answers: { server_errors: string[]; unavailable_without_retry_after: number };
  processes_exited: string[];
  stale?: { fenced_answers: number; served_from_stale: number };
  durability: Record<string, { overall: string; synchronous: boolean; standbys: number; publication_blocked?: number }>;
}

interface FailoverResult {
  scenarios: { scenario: string; figures: Figures; violations: string[] }[];
  violations: string[];
}

/** A timeout for a hang, not for slowness (four failovers, each with a 15 s delivery lease to outlast). */
const TIMEOUT_MS = 600_000;

describe('failover: a promotion takes back nothing a client was told, and no reader skips an event', () => {
  let result: FailoverResult;
  let context: string;
  beforeAll(async () => {
    const run = await runBenchInGroup('bench/failover.bench.mjs', SHORT_RUN, TIMEOUT_MS);
    context = `exit ${run.code}\n${run.stderr.slice(-6000)}`;
    try {
      result = JSON.parse(run.stdout) as FailoverResult;
    } catch {
      throw new Error(`the failover bench printed no result: ${context}`);
    }
    process.stderr.write(`failover: ${JSON.stringify(result.scenarios.map((s) => ({ [s.scenario]: s.figures })))}\n`);
  }, TIMEOUT_MS);
  const figures = (name: string) => result.scenarios.find((s) => s.scenario === name)!.figures;

  it('keeps every rule in every scenario: no 500, 503 with Retry-After, no exit, no skip, the poller complete, all delivered', () => {
    expect({ violations: result.violations, context }).toEqual({ violations: [], context });
    expect(result.scenarios.map((s) => s.scenario)).toEqual(['sync', 'async', 'stale', 'async-wait']);
    for (const { figures: f } of result.scenarios) {
      expect(f.answers.server_errors).toEqual([]);
      expect(f.answers.unavailable_without_retry_after).toBe(0);
      expect(f.processes_exited).toEqual([]);
      for (const r of f.readers)
        expect({ reader: r.name, skipped: r.skipped, received: r.received > 0 }).toEqual({ reader: r.name, skipped: 0, received: true });
      expect(f.deliveries.undelivered).toBe(0);
    }
  });

  it('synchronous replication: nothing acknowledged is lost', () => {
    expect(figures('sync').acknowledged_lost).toEqual({ calls: 0, lead_changes: 0 });
    // Readiness told the operator so beforehand.
    expect(figures('sync').durability.before).toMatchObject({ overall: 'ok', synchronous: true, standbys: 1 });
    expect(figures('async').durability.before).toMatchObject({ overall: 'ok', synchronous: false, standbys: 1 });
  });

  it('asynchronous: readers given events the promotion lost are told (after_lost) and resume without a gap', () => {
    const f = figures('async');
    // The loss was real: commits were acknowledged and readers were given events the promoted database lacks.
    expect(f.acknowledged_lost.calls).toBeGreaterThan(0);
    expect(f.readers.some((r) => r.given_lost > 0)).toBe(true);
    expect(f.readers.some((r) => r.after_lost > 0)).toBe(true);
  });

  it('a stale primary: writes into its dead history are lost, readers resume, and it is refused once the newer is seen', () => {
    const f = figures('stale');
    expect(f.acknowledged_lost.calls).toBeGreaterThan(0);
    expect(f.readers.some((r) => r.after_lost > 0)).toBe(true);
    expect(f.stale).toMatchObject({ served_from_stale: 0 });
    expect(f.stale!.fenced_answers).toBeGreaterThan(0);
  });

  it('EVENTS_WAIT_FOR_STANDBY: no reader or receiver is given an event the promotion loses', () => {
    const f = figures('async-wait');
    expect(f.acknowledged_lost.calls).toBeGreaterThan(0);
    for (const r of f.readers) expect({ reader: r.name, given_lost: r.given_lost }).toEqual({ reader: r.name, given_lost: 0 });
    expect(f.deliveries.given_lost).toBe(0);
    expect(f.deliveries.received).toBeGreaterThan(0);
    // Until the promoted server had a standby of its own, events waited, and readiness and the metric said why.
    expect(f.durability.without_standby).toMatchObject({ overall: 'degraded', standbys: 0, publication_blocked: 1 });
    expect(f.durability.with_new_standby).toMatchObject({ overall: 'ok', standbys: 1 });
  });
});
