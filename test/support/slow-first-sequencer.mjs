import { createRequire } from 'node:module';
import { relative } from 'node:path';

const { default: DefaultSequencer } = createRequire(import.meta.url)('@jest/test-sequencer');

/**
 * Seconds each slow file took in a full run (`npm test` on a clean clone, 2 workers, 2026-11-25;
 * chaos and events-wait as estimated after their runs were shortened; relative weights matter,
 * not the figures). Jest orders files by the durations it cached in earlier runs,
 * and, with no cache (a clean clone, as in CI), by file size: then short files that run long (the
 * chaos run, the waits under load) started last and the run ended on one busy worker while the
 * other sat idle. A file missing here counts as DEFAULT_S.
 */
const KNOWN_S = {
  'test/recordings-large.e2e.spec.ts': 87,
  'test/fuzz.e2e.spec.ts': 64,
  'test/chaos.e2e.spec.ts': 65,
  'test/transcript-stalled-readers.e2e.spec.ts': 44,
  'test/multi-process.e2e.spec.ts': 29,
  'test/webhook-receivers.e2e.spec.ts': 24,
  'test/benches.e2e.spec.ts': 40,
  'test/webhook-crash.e2e.spec.ts': 23,
  'test/recordings-cli.e2e.spec.ts': 23,
  'test/cli.e2e.spec.ts': 19,
  'test/test-helpers.e2e.spec.ts': 12,
  'test/test-mode-cli.e2e.spec.ts': 10,
  'test/test-mode.e2e.spec.ts': 10,
  'test/rate-limit-leases.e2e.spec.ts': 9,
  'test/keyed-read-statements.e2e.spec.ts': 8,
  'test/quick-start.e2e.spec.ts': 18,
  'test/openapi-lint.e2e.spec.ts': 18,
  'test/outage.e2e.spec.ts': 15,
  'test/body-attack.e2e.spec.ts': 14,
  'test/receptionist-settings.e2e.spec.ts': 14,
  'test/slow-bodies.e2e.spec.ts': 14,
  'test/events-wait-load.e2e.spec.ts': 13,
  'test/swagger-ui.e2e.spec.ts': 13,
  'test/events-wait.e2e.spec.ts': 11,
  'test/rate-limit.e2e.spec.ts': 11,
  'src/common/validation/declared-members.spec.ts': 11,
  'test/stdout-json.e2e.spec.ts': 10,
  'test/client.e2e.spec.ts': 10,
  'test/recordings.e2e.spec.ts': 10,
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
