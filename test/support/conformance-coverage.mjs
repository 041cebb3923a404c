import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Documented (operationId, status) pairs no request of this run received.
 * Each pair counts on its own: a status the shared code answers (401, 403,
 * 413, 415, 429, 503) is exercised on every operation that documents it
 * (test/request-rules/operation-statuses.cases.ts walks them all from the document).
 */
export function neverExercised(runDir) {
  if (!runDir || !existsSync(join(runDir, 'documented.json'))) return undefined;
  const documented = JSON.parse(readFileSync(join(runDir, 'documented.json'), 'utf8'));
  const seen = new Set();
  for (const file of readdirSync(runDir).filter((f) => f.startsWith('exercised-'))) {
    for (const line of readFileSync(join(runDir, file), 'utf8').split('\n').filter(Boolean)) {
      const [op, status] = line.split('\t');
      seen.add(`${op} ${status}`);
    }
  }
  return documented.map(({ operationId, status }) => `${operationId} ${status}`).filter((pair) => !seen.has(pair));
}

/** A run of a subset of the tests (a path or name filter) cannot be expected to cover the API. */
function isFullRun(globalConfig) {
  const paths = globalConfig?.testPathPatterns?.patterns ?? (globalConfig?.testPathPattern ? [globalConfig.testPathPattern] : []);
  return paths.length === 0 && !globalConfig?.testNamePattern && !globalConfig?.onlyChanged && !globalConfig?.findRelatedTests;
}

/** Prints the documented responses never exercised; on a full run, any of them fails the run. */
export function reportConformanceCoverage(globalConfig) {
  const missing = neverExercised(process.env.TEST_CONFORMANCE_DIR);
  if (missing === undefined) return;
  if (missing.length === 0) {
    console.log('\nOpenAPI conformance: every documented operation and status was exercised.');
    return;
  }
  if (!isFullRun(globalConfig)) {
    // A filtered run is expected to miss most of them; the list would bury the run's own output.
    console.log(`\nOpenAPI conformance: ${missing.length} documented operation statuses not exercised by this filtered run.`);
    return;
  }
  console.log(`\nOpenAPI conformance: documented but never exercised in this run (${missing.length}):\n  ${missing.join('\n  ')}`);
  throw new Error(`${missing.length} documented operation statuses were never exercised (listed above).`);
}
