import { createRequire } from 'node:module';
import { relative } from 'node:path';

const { default: DefaultSequencer } = createRequire(import.meta.url)('@jest/test-sequencer');

/**
 * Seconds each slow file took in a full run (`npm test` on a clean clone, 2 workers, 2026-11-27;
 * the files shortened since as estimated from their runs alone, a group spec as the sum of the files it replaced less
 * about 3 s for each module load it saves; relative weights matter, not the figures). Jest orders files by the durations it cached in earlier runs,
 * and, with no cache (a clean clone, as in CI), by file size: then short files that run long (the
 * chaos run, the waits under load) started last and the run ended on one busy worker while the
 * other sat idle. A file missing here counts as DEFAULT_S.
 */
const KNOWN_S = {
  'test/benches.e2e.spec.ts': 75,
  'test/openapi-document.e2e.spec.ts': 70,
  'test/request-rules.e2e.spec.ts': 65,
  'test/chaos.e2e.spec.ts': 60,
  'test/hostile-requests.e2e.spec.ts': 58,
  'test/medium/records.spec.ts': 57,
  'test/operators.e2e.spec.ts': 55,
  'test/medium/delivery.spec.ts': 54,
  'test/transcript-stalled-readers.e2e.spec.ts': 50,
  'test/multi-process.e2e.spec.ts': 50,
  'test/access.e2e.spec.ts': 47,
  'test/observability.e2e.spec.ts': 45,
  'test/waiting-clients.e2e.spec.ts': 42,
  'test/webhooks.e2e.spec.ts': 41,
  'test/fuzz.e2e.spec.ts': 40,
  'test/recordings-api.e2e.spec.ts': 40,
  'test/quick-start.e2e.spec.ts': 38,
  'test/owner-console.e2e.spec.ts': 35,
  'test/recordings-large.e2e.spec.ts': 33,
  'test/http-foundation.e2e.spec.ts': 33,
  'test/test-data.e2e.spec.ts': 33,
  'test/medium/database.spec.ts': 33,
  'test/guides.e2e.spec.ts': 32,
  'test/medium/settings.spec.ts': 31,
  'test/events-wait-load.e2e.spec.ts': 30,
  'test/hot-resource-writes.e2e.spec.ts': 26,
  'test/clean-stop.e2e.spec.ts': 25,
  'test/outage.e2e.spec.ts': 22,
  'test/resources.e2e.spec.ts': 18,
  'test/slow-bodies.e2e.spec.ts': 16,
  'src/demo/simulated-call.spec.ts': 14,
  'src/cli/failures.spec.ts': 13,
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
