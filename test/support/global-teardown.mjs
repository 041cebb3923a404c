import { reportConformanceCoverage } from './conformance-coverage.mjs';

export default async function globalTeardown(globalConfig) {
  if (globalThis.__testPg) await globalThis.__testPg.stop();
  reportConformanceCoverage(globalConfig);
}
