import { runBenchInGroup } from './support/bench-in-group';

/**
 * The chaos bench, short: mixed traffic from two firms against two api and two worker
 * processes while processes of both roles are SIGKILLed, PostgreSQL is stopped and
 * started and endpoints are disabled and enabled, until each fault has happened as
 * often as GOALS asks and the service has answered requests after the last outage's
 * allowance for 503s (bench/chaos/run-length.mjs; CHAOS_DURATION is only the cap),
 * not for a fixed minute that a busy machine fills with fewer faults; then its
 * invariant checker must find nothing lost, duplicated beyond the bound, sent to a
 * disabled endpoint, mirrored wrong or answered outside the spec.
 */
/**
 * Every fault kind, each as often as it adds power. One kill per role: its victim is the role's one process that is
 * not kept, and a second kill could only hit that one's replacement (the same code, started the same way) once it had
 * started, which at load 19 took 40 s of the run. Two outages: a recovery that works once but leaves a pool or a LISTEN
 * connection unfit for the next is a failure of its own. Requests: the checker judges each one, but what the faults
 * put at risk are the requests in flight at them (6 at a time, throughout) and those after the last outage
 * (recovered_requests, judged strictly); 600 still sends each operation many times (the rarest, test events, a few).
 */
const GOALS = { api_kills: 1, worker_kills: 1, outages: 2, disables: 2, requests: 600, recovered_requests: 200 };
const SHORT_RUN = {
  CHAOS_UNTIL: Object.entries(GOALS)
    .map(([name, n]) => `${name}=${n}`)
    .join(','),
  CHAOS_DURATION: '300',
  CHAOS_KILL_MIN: '3',
  CHAOS_KILL_MAX: '5',
  // Two outages early (3 s down each: dozens of requests meet it at 6 in flight), then (none repeated past its goal)
  // at least 15 s more of traffic judged strictly. The kills come within the first 10 s, so their replacements are
  // often still starting while PostgreSQL is stopped and started.
  CHAOS_PG_EVERY: '5',
  CHAOS_PG_DOWN: '3',
  CHAOS_TOGGLE_EVERY: '1',
  CHAOS_FIRMS: '2',
  CHAOS_CONCURRENCY: '6',
  CHAOS_RESULT_FILE: '-',
};

interface ChaosResult {
  seconds: number;
  run_length: { until: Record<string, number>; observed: Record<string, number>; ended_by: string };
  kills: { api: number; worker: number };
  outages: number[];
  endpoint_disables: number;
  requests: number;
  violations: number;
  checks: { name: string; ok: boolean; counts: Record<string, unknown>; violations: string[] }[];
}

/**
 * A timeout for a hang, not for slowness: at load 25 on the 2-core machine the processes alone took minutes to start.
 * The bench is stopped a little before it, so its own log says where it stood.
 */
const TIMEOUT_MS = 900_000;

describe('chaos: a short run loses nothing', () => {
  it(
    'kills both roles, restarts PostgreSQL, toggles endpoints, and every invariant holds',
    async () => {
      const run = await runBenchInGroup('bench/chaos.bench.mjs', SHORT_RUN, TIMEOUT_MS);
      const context = `exit ${run.code}\n${run.stderr.slice(-6000)}`;
      let result: ChaosResult;
      try {
        result = JSON.parse(run.stdout) as ChaosResult;
      } catch {
        throw new Error(`the chaos bench printed no result: ${context}`);
      }
      process.stderr.write(
        `chaos: ${result.seconds} s of faults, ended by ${result.run_length.ended_by}: ${JSON.stringify(result.run_length.observed)}\n`,
      );
      expect({ failed: result.checks.filter((c) => !c.ok), context }).toEqual({ failed: [], context });
      expect(result.violations).toBe(0);
      expect(run.code).toBe(0);
      // The goals, not the cap, ended the run: every fault happened as often as asked, with traffic after the last outage.
      expect(result.run_length).toMatchObject({ until: GOALS, ended_by: 'goals' });
      for (const [name, n] of Object.entries(GOALS)) expect({ [name]: result.run_length.observed[name] >= n }).toEqual({ [name]: true });
      expect(result.kills.api).toBeGreaterThanOrEqual(GOALS.api_kills);
      expect(result.kills.worker).toBeGreaterThanOrEqual(GOALS.worker_kills);
      expect(result.outages.length).toBeGreaterThanOrEqual(GOALS.outages);
      expect(result.endpoint_disables).toBeGreaterThanOrEqual(GOALS.disables);
      expect(result.requests).toBeGreaterThanOrEqual(GOALS.requests);
      // The checker judged real work: events delivered, answers lost to kills and outages.
      const counts = (prefix: string) => result.checks.find((c) => c.name.startsWith(prefix))?.counts ?? {};
      expect(counts('every event reached')).toMatchObject({ receipts: expect.any(Number) });
      expect(counts('every event reached').receipts).toBeGreaterThan(0);
      expect(counts('every answer was')).toMatchObject({ outage_503: expect.any(Number) });
    },
    TIMEOUT_MS,
  );
});
