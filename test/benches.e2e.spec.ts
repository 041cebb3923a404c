import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every benchmark in bench/ runs once with tiny parameters, so one that no longer runs (a cursor the service now
 * refuses, an option renamed, a module moved in dist/) fails the suite instead of the next person who measures.
 * What it measures is not judged here: only that it runs to the end and reports.
 */
interface BenchRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The JSON results file it wrote, if it writes one. */
  results: any;
  seconds: number;
}

/** Process groups of the benches running now (each bench leads its own), killed if the test ends before they do. */
const running = new Set<number>();
const killGroup = (pid: number) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
};

/**
 * Runs a bench in a process group of its own. When it exits, whatever it left running in that group is killed: a
 * service process a failed bench did not stop would hold the bench's stderr open, and the run would wait on it for ever.
 */
function runBench(file: string, args: string[], env: Record<string, string>): Promise<BenchRun> {
  const resultsDir = mkdtempSync(join(tmpdir(), 'bench-results-'));
  const started = Date.now();
  const child = spawn(process.execPath, [file, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      // The run's PostgreSQL, for the benches that take one (each makes a database of its own on it).
      BENCH_DATABASE_URL: process.env.TEST_PG_ADMIN_URL!,
      BENCH_RESULTS_DIR: resultsDir,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.add(child.pid!);
  child.once('exit', () => {
    running.delete(child.pid!);
    killGroup(child.pid!);
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => {
    child.once('close', (code) => {
      const [written] = readdirSync(resultsDir);
      const results = written ? JSON.parse(readFileSync(join(resultsDir, written), 'utf8')) : undefined;
      rmSync(resultsDir, { recursive: true, force: true });
      resolve({ code, stdout, stderr, results, seconds: (Date.now() - started) / 1000 });
    });
  });
}

/** Each bench's own knobs (read in its header comment), turned down to seconds. */
const BENCHES: Record<string, { args?: string[]; env: Record<string, string>; check(run: BenchRun): void }> = {
  'calls-list.bench.mjs': {
    // The deep page alone: it is the scenario whose cursor must be built as the service builds it.
    env: { BENCH_CALLS: '300', BENCH_ONLY: 'after', BENCH_DURATION: '0.3', BENCH_ROUNDS: '1', BENCH_WARMUP: '0.1', BENCH_CONNECTIONS: '2' },
    check: (run) => {
      expect(run.stderr).toContain('after 1,000 cursor steps: 100 calls per page, same JSON on both');
      expect(run.stdout).toMatch(/^\| after 1,000 cursor steps \| \d+ \| \d+ \/ \d+ \| \d+ \|/m);
    },
  },
  'webhook-delivery.bench.mjs': {
    args: ['--events', '20', '--rate', '100', '--only', 'ours-1,graphile-1'],
    env: {},
    check: (run) => {
      expect(run.results.results.map((r: any) => ({ name: r.name, burst: r.burst.duplicates, paced: r.paced.duplicates }))).toEqual([
        { name: 'ours-1', burst: 0, paced: 0 },
        { name: 'graphile-1', burst: 0, paced: 0 },
      ]);
    },
  },
  'soak.bench.mjs': {
    // One second of traffic: the run is judged on finishing with ok (every answer valid, every event delivered).
    env: { SOAK_SECONDS: '1', SOAK_CONCURRENCY: '2', SOAK_FIRMS: '1' },
    check: (run) => {
      expect(run.stderr).toMatch(/soak: seed \d+ \(replay with SOAK_SEED=\d+\)/);
      expect({ ok: run.results.ok, requests: run.results.requests > 0 }).toEqual({ ok: true, requests: true });
    },
  },
  'tracing-off.bench.mjs': {
    env: { BENCH_ITERATIONS: '1000' },
    check: (run) => {
      expect(run.stdout).toMatch(/^\| access line: trace ids of a request \| [\d.]+ \| [\d.]+ \| -?[\d.]+ \|$/m);
      expect(run.stdout).toMatch(/^\| outbox record: span wrapper \(awaited\) \| [\d.]+ \| [\d.]+ \| -?[\d.]+ \|$/m);
    },
  },
  'body-attack.bench.mjs': {
    // Two bodies a scenario (one with Content-Length, one chunked), 250 ms apart instead of 500: the same requests.
    env: { BENCH_SECONDS: '0.5', BENCH_PER_SECOND: '4' },
    check: (run) => {
      const rows = run.stdout.split('\n').filter((l) => /^\| (scoped key|weakest key|internal token)/.test(l));
      expect(rows).toHaveLength(4);
      // The weakest key never gets past the scope check, and a bodiless route never reads a body (0: reset mid-upload).
      expect(rows[1]).toMatch(/\| (\d+× (403|0)(, )?)+ \|/);
      expect(rows[2]).toMatch(/\| (\d+× (413|0)(, )?)+ \|/);
    },
  },
  'growth.bench.mjs': {
    args: ['--tiny'],
    env: {},
    check: (run) => {
      // Every request answered at both sizes, and every retained table lost exactly its day's partition (rows and all).
      expect(run.results.reads.map((r: any) => [r.name, r.one.n, r.ten.n])).toEqual(
        [
          'calls list, first page',
          'calls list, after 1,000 pages',
          'call detail',
          'leads list, first page',
          'PATCH lead (external_id)',
        ].map((name) => [name, 10, 10]),
      );
      expect(run.results.drop.ten.map((d: any) => [d.table, d.how, d.rows > 0 || d.table === 'mail_outbox'])).toEqual(
        ['webhook_deliveries', 'events', 'mail_outbox', 'audit_log'].map((t) => [t, 'DROP TABLE of its day partition', true]),
      );
      expect(run.stdout).toMatch(/^\| calls, MiB per million calls \| \d+ \| \d+ \|$/m);
      // Both whole days dropped at 10x, each table, while the three reader loops ran (how many reads start during the
      // drops and just before them depends on the machine's speed, so it is not judged).
      expect(run.results.drop.ten_all_days).toHaveLength(8);
      expect(run.results.drop.reads_all).toBeGreaterThan(0);
      expect(run.results.drop.reads_by_scenario.map((r: any) => [r.name, typeof r.before.n])).toEqual(
        ['calls list, first page', 'call detail', 'leads list, first page'].map((name) => [name, 'number']),
      );
      // Every seeding phase timed, the indexes built again after the load among them.
      expect(Object.keys(run.results.seeding[1].phases_s)).toEqual([
        'service',
        'partitions',
        'session',
        'indexes_dropped',
        'seed_1x',
        'seed_10x',
        'indexes_built',
        'vacuum_read_tables',
        'analyze_others',
      ]);
    },
  },
  'standby-wait.bench.mjs': {
    args: ['--events', '50', '--rate', '100', '--rounds', '1'],
    env: {},
    check: (run) => {
      // Every delivery arrived with and without the wait for a standby, each setting timed.
      const result = JSON.parse(run.stdout);
      expect(result.rounds.map((r: any) => [r.wait_for_standby, typeof r.p50, typeof r.p99])).toEqual([
        [false, 'number', 'number'],
        [true, 'number', 'number'],
      ]);
    },
  },
  'recording-rss.bench.mjs': {
    env: { BENCH_MIB: '2' },
    check: (run) => {
      expect(run.results.results.map((r: any) => [r.store, typeof r.overall_growth_mib])).toEqual([
        ['fs', 'number'],
        ['s3', 'number'],
      ]);
    },
  },
};

/** Benches a test file of their own runs (short, with assertions on what they report), so they are not run twice. */
const RUN_BY_OWN_TEST: Record<string, string> = {
  'burst-fairness.bench.mjs': 'test/burst-fairness.e2e.spec.ts',
  'chaos.bench.mjs': 'test/chaos.e2e.spec.ts',
  'failover.bench.mjs': 'test/failover.e2e.spec.ts',
};

describe('benchmarks', () => {
  afterAll(() => running.forEach(killGroup));

  it('every bench/*.bench.mjs is exercised here or by a test of its own', () => {
    expect(
      readdirSync('bench')
        .filter((f) => f.endsWith('.bench.mjs'))
        .sort(),
    ).toEqual([...Object.keys(BENCHES), ...Object.keys(RUN_BY_OWN_TEST)].sort());
    for (const [bench, test] of Object.entries(RUN_BY_OWN_TEST)) expect(readFileSync(test, 'utf8')).toContain(`bench/${bench}`);
  });

  it('each runs to the end with tiny parameters and reports', async () => {
    // Side by side: each starts its own PostgreSQL and processes, and most of each run is start-up.
    const names = Object.keys(BENCHES);
    const runs = await Promise.all(names.map((name) => runBench(join('bench', name), BENCHES[name].args ?? [], BENCHES[name].env)));
    process.stderr.write(`benches: ${names.map((name, i) => `${name} ${runs[i].seconds.toFixed(1)} s`).join(', ')}\n`);
    for (const [i, name] of names.entries()) {
      const run = runs[i];
      expect({ name, code: run.code, stderr: run.code === 0 ? '' : run.stderr.slice(-2000) }).toEqual({ name, code: 0, stderr: '' });
      BENCHES[name].check(run);
    }
    // A bound for a hang, not for speed: seven benches side by side each start PostgreSQL and processes, and with two
    // suites on the 2-core machine (load 16 to 50 while both run their slowest files) they took 166 to 181 s.
  }, 600_000);
});
