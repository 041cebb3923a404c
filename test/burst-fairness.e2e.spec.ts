import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBenchInGroup } from './support/bench-in-group';

/** One round of bench/burst-fairness.bench.mjs, as its results file has it. */
interface BurstRound {
  name: 'limited' | 'unlimited';
  quietP99: number;
  bound: number;
  within: boolean;
  ratio: number;
  burst: { p99: number; statuses: Record<string, number> };
  failedReads: number[];
}

const TIMEOUT_MS = 240_000;

/**
 * Issue 44's judgement of one firm's burst, in one run: firm B's read p99 while firm A sends waves of 180 parallel
 * reads, against 2 x B's quiet p99 plus the share a burst of as many requests to the cheapest route takes (the
 * control), with the per-key concurrency limit at its default. The same build with the limit out of the way runs in
 * the same sitting, alternating: B's p99 there is the proof that the waves are a burst this test could fail on (26 to
 * 59 times B's quiet p99 when measured; docs/benchmarks.md).
 */
describe('one firm`s burst and another firm`s reads', () => {
  it(
    'keeps firm B`s read p99 near the bound with the concurrency limit, and far over it without',
    async () => {
      const resultsDir = mkdtempSync(join(tmpdir(), 'burst-fairness-'));
      try {
        const run = await runBenchInGroup(
          'bench/burst-fairness.bench.mjs',
          {
            BENCH_DATABASE_URL: process.env.TEST_PG_ADMIN_URL!,
            BENCH_RESULTS_DIR: resultsDir,
            BURST_KIND: 'reads',
            BURST_ROUNDS: '3',
            BURST_WAVES: '2',
            BURST_QUIET_READS: '40',
          },
          TIMEOUT_MS,
        );
        expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, stderr: '' });
        const [file] = readdirSync(resultsDir);
        const rounds = (JSON.parse(readFileSync(join(resultsDir, file), 'utf8')) as { rounds: BurstRound[] }).rounds;
        const limited = rounds.filter((r) => r.name === 'limited');
        const unlimited = rounds.filter((r) => r.name === 'unlimited');
        expect([limited.length, unlimited.length]).toEqual([3, 3]);
        for (const r of rounds) {
          // A's requests answered (a few refused 429 if the line's wait runs out on a busy machine), B's never refused.
          expect(Object.keys(r.burst.statuses).filter((status) => status !== '200' && status !== '429')).toEqual([]);
          expect(r.failedReads).toEqual([]);
        }
        // Judged in the same sitting. The suite runs this beside two other test files on two cores, whose bursts land in
        // one phase of a round and not the next: there the attack's bound is met in some rounds, on a quiet machine in
        // all (bench/burst-fairness.bench.mjs, docs/benchmarks.md). What no neighbour's burst can make up: without the
        // cap most rounds are over the bound and B's p99 is many times what it is with the cap.
        const shown = (rs: BurstRound[]) => rs.map((r) => `${r.burst.p99.toFixed(0)} ms (bound ${r.bound.toFixed(0)} ms)`);
        const median = (rs: BurstRound[]) => rs.map((r) => r.burst.p99).sort((x, y) => x - y)[1];
        expect({
          limitedWithinOnce: limited.some((r) => r.within),
          unlimitedOverMostly: unlimited.filter((r) => !r.within).length >= 2,
          capCutsP99ToAThird: median(limited) * 3 <= median(unlimited),
          limited: shown(limited),
          unlimited: shown(unlimited),
        }).toEqual({
          limitedWithinOnce: true,
          unlimitedOverMostly: true,
          capCutsP99ToAThird: true,
          limited: shown(limited),
          unlimited: shown(unlimited),
        });
      } finally {
        rmSync(resultsDir, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );
});
