import { createRequire } from 'node:module';
import { relative } from 'node:path';

const { default: DefaultSequencer } = createRequire(import.meta.url)('@jest/test-sequencer');

/**
 * Seconds each slow file took in a full run (`npm test` on a clean clone, 2 workers, 2026-11-27 at 41ad367, load
 * median 4.6; relative weights matter, not the figures). Jest orders files by the durations it cached in earlier runs,
 * and, with no cache (a clean clone, as in CI), by file size: then short files that run long (the
 * chaos run, the waits under load) started last and the run ended on one busy worker while the
 * other sat idle. A file missing here counts as DEFAULT_S.
 */
const KNOWN_S = {
  'test/openapi-document.e2e.spec.ts': 110,
  'test/operators.e2e.spec.ts': 81,
  'test/benches.e2e.spec.ts': 76,
  'test/chaos.e2e.spec.ts': 64,
  'test/medium/records.spec.ts': 57,
  'test/request-rules.e2e.spec.ts': 52,
  'test/hostile-requests.e2e.spec.ts': 47,
  'test/medium/delivery.spec.ts': 47,
  'test/owner-console.e2e.spec.ts': 39,
  'test/recordings-large.e2e.spec.ts': 39,
  'test/multi-process.e2e.spec.ts': 38,
  'test/events-wait-load.e2e.spec.ts': 37,
  'test/webhooks.e2e.spec.ts': 33,
  'test/recordings-api.e2e.spec.ts': 33,
  'test/hot-resource-writes.e2e.spec.ts': 33,
  'test/quick-start.e2e.spec.ts': 31,
  'test/waiting-clients.e2e.spec.ts': 30,
  'test/fuzz.e2e.spec.ts': 30,
  'test/outage.e2e.spec.ts': 28,
  'test/access.e2e.spec.ts': 27,
  'test/clean-stop.e2e.spec.ts': 27,
  'test/medium/database.spec.ts': 23,
  'test/test-data.e2e.spec.ts': 20,
  'test/transcript-stalled-readers.e2e.spec.ts': 18,
  'test/observability.e2e.spec.ts': 30, // with log-secrets' and request-log-context's 5 and 8, merged into it since
  'test/medium/settings.spec.ts': 18,
  'test/body-attack.e2e.spec.ts': 18,
  'test/guides.e2e.spec.ts': 15,
  'test/resources.e2e.spec.ts': 13,
  'test/slow-bodies.e2e.spec.ts': 13,
  'test/http-foundation.e2e.spec.ts': 11,
  'test/boot-waits-for-database.e2e.spec.ts': 11,
  'test/listen-hostile-api.e2e.spec.ts': 10,
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
