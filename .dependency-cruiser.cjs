/**
 * Module boundaries: a bounded context under src/ reaches another only
 * through that context's public index.ts, never its entities or internals.
 * The kernel (common, config, database) is open to all.
 */
const CONTEXTS = 'account|audit|auth|calls|demo|events|health|ingestion|leads|receptionist|recordings|transcripts|webhooks|mail';

module.exports = {
  forbidden: [
    {
      name: 'context-through-index-only',
      severity: 'error',
      comment: 'Import another context only through its index.ts.',
      from: { path: `^src/(${CONTEXTS})/` },
      to: {
        path: `^src/(${CONTEXTS})/.+`,
        pathNot: [`^src/$1/`, `^src/(${CONTEXTS})/index\\.ts$`],
      },
    },
    {
      name: 'outside-through-index-only',
      severity: 'error',
      comment: 'The CLI, the app shell and tests of other contexts use a context only through its index.ts.',
      from: { path: '^src/(cli|app\\.module|create-app|main)' },
      to: { path: `^src/(${CONTEXTS})/.+`, pathNot: `^src/(${CONTEXTS})/index\\.ts$` },
    },
    {
      name: 'kernel-stays-independent',
      severity: 'error',
      comment: 'common, config and database must not depend on any context.',
      from: { path: '^src/(common|config|database)/' },
      to: { path: `^src/(${CONTEXTS}|cli)/` },
    },
    { name: 'no-circular', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.spec\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
