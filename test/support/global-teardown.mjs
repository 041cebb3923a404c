import { reportConformanceCoverage } from './conformance-coverage.mjs';

export default async function globalTeardown(globalConfig) {
  if (globalThis.__xminHolder) await globalThis.__xminHolder();
  if (globalThis.__testPg) await globalThis.__testPg.stop();
  reportConformanceCoverage(globalConfig);
}
