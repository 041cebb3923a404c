import { spawn } from 'node:child_process';

/**
 * The chaos bench, short: a minute of mixed traffic from two firms against two api
 * and two worker processes while processes of both roles are SIGKILLed, PostgreSQL
 * is stopped and started twice and endpoints are disabled and enabled; then its
 * invariant checker must find nothing lost, duplicated beyond the bound, sent to a
 * disabled endpoint, mirrored wrong or answered outside the spec.
 */
const SHORT_RUN = {
  CHAOS_DURATION: '60',
  CHAOS_KILL_MIN: '8',
  CHAOS_KILL_MAX: '12',
  CHAOS_PG_EVERY: '25',
  CHAOS_PG_DOWN: '4',
  CHAOS_TOGGLE_EVERY: '8',
  CHAOS_FIRMS: '2',
  CHAOS_CONCURRENCY: '6',
  CHAOS_RESULT_FILE: '-',
};

interface ChaosResult {
  kills: { api: number; worker: number };
  outages: number[];
  endpoint_disables: number;
  requests: number;
  violations: number;
  checks: { name: string; ok: boolean; counts: Record<string, unknown>; violations: string[] }[];
}

function runBench(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bench/chaos.bench.mjs'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('chaos: a short run loses nothing', () => {
  it('kills both roles, restarts PostgreSQL, and every invariant holds', async () => {
    const run = await runBench(SHORT_RUN);
    const context = `exit ${run.code}\n${run.stderr.slice(-6000)}`;
    let result: ChaosResult;
    try {
      result = JSON.parse(run.stdout) as ChaosResult;
    } catch {
      throw new Error(`the chaos bench printed no result: ${context}`);
    }
    expect({ failed: result.checks.filter((c) => !c.ok), context }).toEqual({ failed: [], context });
    expect(result.violations).toBe(0);
    expect(run.code).toBe(0);
    expect(result.kills.api).toBeGreaterThanOrEqual(1);
    expect(result.kills.worker).toBeGreaterThanOrEqual(1);
    expect(result.outages.length).toBeGreaterThanOrEqual(1);
    expect(result.endpoint_disables).toBeGreaterThanOrEqual(1);
    expect(result.requests).toBeGreaterThan(100);
    // The checker judged real work: events delivered, answers lost to kills and outages.
    const counts = (prefix: string) => result.checks.find((c) => c.name.startsWith(prefix))?.counts ?? {};
    expect(counts('every event reached')).toMatchObject({ receipts: expect.any(Number) });
    expect(counts('every event reached').receipts).toBeGreaterThan(0);
    expect(counts('every answer was')).toMatchObject({ outage_503: expect.any(Number) });
  }, 600_000);
});
