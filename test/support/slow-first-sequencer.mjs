import { createRequire } from 'node:module';
import { relative } from 'node:path';

const { default: DefaultSequencer } = createRequire(import.meta.url)('@jest/test-sequencer');

/**
 * Seconds each slow file took in a full run (`npm test` on a clean clone, 2 workers, 2026-11-27;
 * the files shortened since as estimated from their runs alone; relative weights matter, not the
 * figures). Jest orders files by the durations it cached in earlier runs,
 * and, with no cache (a clean clone, as in CI), by file size: then short files that run long (the
 * chaos run, the waits under load) started last and the run ended on one busy worker while the
 * other sat idle. A file missing here counts as DEFAULT_S.
 */
const KNOWN_S = {
  'test/benches.e2e.spec.ts': 75,
  'test/chaos.e2e.spec.ts': 60,
  'test/transcript-stalled-readers.e2e.spec.ts': 50,
  'test/multi-process.e2e.spec.ts': 50,
  'test/fuzz.e2e.spec.ts': 40,
  'test/quick-start.e2e.spec.ts': 38,
  'test/cli.e2e.spec.ts': 35,
  'test/medium/webhooks.spec.ts': 35,
  'test/recordings-large.e2e.spec.ts': 33,
  'test/events-wait-load.e2e.spec.ts': 30,
  'test/hot-resource-writes.e2e.spec.ts': 26,
  'test/clean-stop.e2e.spec.ts': 25,
  'test/swagger-ui.e2e.spec.ts': 25,
  'test/webhook-cli.e2e.spec.ts': 24,
  'test/outage.e2e.spec.ts': 22,
  'test/recordings-s3.e2e.spec.ts': 21,
  'test/metrics.e2e.spec.ts': 21,
  'test/webhook-crash.e2e.spec.ts': 20,
  'test/key-credentials.e2e.spec.ts': 20,
  'test/medium/readme-cli.spec.ts': 20,
  'test/medium/demo.spec.ts': 19,
  'test/webhook-rotation.e2e.spec.ts': 19,
  'test/recordings.e2e.spec.ts': 19,
  'test/ingestion.e2e.spec.ts': 18,
  'test/medium/database-session-ended.spec.ts': 17,
  'test/test-helper-budget.e2e.spec.ts': 17,
  'test/prototype-members.e2e.spec.ts': 17,
  'test/client-follow.e2e.spec.ts': 16,
  'test/events-wait-revocation.e2e.spec.ts': 16,
  'test/transcript.e2e.spec.ts': 16,
  'test/slow-bodies.e2e.spec.ts': 16,
  'test/test-mode-wait.e2e.spec.ts': 16,
  'test/listen.e2e.spec.ts': 15,
  'test/console-processes.e2e.spec.ts': 15,
  'test/medium/lead-writes.spec.ts': 15,
  'test/openapi-integers.e2e.spec.ts': 14,
  'test/console.e2e.spec.ts': 14,
  'test/fuzz-findings.e2e.spec.ts': 14,
  'test/isolation-matrix.e2e.spec.ts': 14,
  'test/openapi-examples.e2e.spec.ts': 14,
  'test/route-declarations.e2e.spec.ts': 14,
  'test/leads.e2e.spec.ts': 14,
  'test/console-browser.e2e.spec.ts': 14,
  'src/demo/simulated-call.spec.ts': 14,
  'test/refusals-readable.e2e.spec.ts': 14,
  'test/medium/partition-retention.spec.ts': 13,
  'test/operation-statuses.e2e.spec.ts': 13,
  'test/calls.e2e.spec.ts': 13,
  'test/scope-matrix.e2e.spec.ts': 13,
  'src/cli/failures.spec.ts': 13,
  'test/test-mode-cli.e2e.spec.ts': 12,
  'test/recordings-cli.e2e.spec.ts': 12,
  'test/webhook-metrics.e2e.spec.ts': 12,
  'test/listen-hostile-api.e2e.spec.ts': 12,
};
const DEFAULT_S = 4;
/** Unit specs (beside their code) run no server and no database: most take a fraction of a second. */
const DEFAULT_UNIT_S = 0.5;

/**
 * Longest first: Jest's own cached durations where a previous run left them, else the table above;
 * among files of one default, the larger first (Jest's own rule without durations).
 */
export default class SlowFirstSequencer extends DefaultSequencer {
  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    const file = relative(test.context.config.rootDir, test.path);
    const fallback = file.startsWith('src/') ? DEFAULT_UNIT_S : DEFAULT_S;
    return (KNOWN_S[file] ?? fallback) * 1000 + test.context.hasteFS.getSize(test.path) / 1000;
  }
}
