/**
 * Module boundaries and layers. A bounded context under src/ reaches another
 * only through that context's public index.ts; inside a context, controllers
 * talk to services, services to repositories, repositories to the database.
 * The kernel (common, config, database) depends on no context.
 */
const CONTEXTS =
  'account|audit|auth|calls|console|demo|events|health|ingestion|leads|receptionist|recordings|transcripts|webhooks|mail|metrics';

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
      comment: 'The CLI, the app shell and the e2e tests use a context only through its index.ts.',
      from: { path: '^(src/(cli|app\\.module|create-app|main|openapi)|test/)' },
      to: { path: `^src/(${CONTEXTS})/.+`, pathNot: `^src/(${CONTEXTS})/index\\.ts$` },
    },
    {
      name: 'kernel-stays-independent',
      severity: 'error',
      comment: 'common, config and database must not depend on any context.',
      from: { path: '^src/(common|config|database)/' },
      to: { path: `^src/(${CONTEXTS}|cli)/` },
    },
    {
      name: 'controller-not-to-storage',
      severity: 'error',
      comment: 'A controller calls a service; it never touches a repository or a row type.',
      from: { path: '\\.controller\\.ts$' },
      to: { path: '(\\.repository\\.ts|\\.tables\\.ts)$' },
    },
    {
      name: 'typeorm-only-in-the-kernel',
      severity: 'error',
      comment:
        'TypeORM (DataSource, pool, migrations, transactions) stays in src/database; contexts run SQL through its Queryable and Tx. ' +
        "A context's entities, repositories and module may use TypeORM's entity decorators, Repository and QueryBuilder.",
      from: { path: '^src/', pathNot: ['^src/database/', `^src/(${CONTEXTS})/(entities/.+|[^/]+\\.repository\\.ts|[^/]+\\.module\\.ts)$`] },
      to: { path: 'node_modules/(typeorm|@nestjs/typeorm)/' },
    },
    {
      name: 'repository-not-to-service',
      severity: 'error',
      comment: 'A repository holds SQL; it never calls back into a service.',
      from: { path: '\\.repository\\.ts$' },
      to: { path: '\\.service\\.ts$' },
    },
    {
      name: 'index-exports-no-storage',
      severity: 'error',
      comment: "A context's public index.ts exports no row type and no repository: its tables are its own.",
      from: { path: `^src/(${CONTEXTS})/index\\.ts$` },
      to: { path: '(\\.repository\\.ts|\\.tables\\.ts)$' },
    },
    {
      name: 'bench-runs-compiled-code',
      severity: 'error',
      comment: 'Benchmarks load the compiled service from dist/, never the TypeScript sources or the test harness.',
      from: { path: '^bench/' },
      to: { path: '^(src|test)/' },
    },
    {
      name: 'source-not-from-tests',
      severity: 'error',
      comment: 'Production code never depends on the test harness or benchmarks.',
      from: { path: '^(src|migrations)/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^(test|bench)/' },
    },
    { name: 'no-circular', severity: 'error', from: { path: '^(src|test|bench)/' }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^src/.*\\.spec\\.ts$|^dist/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
