/**
 * Module boundaries and layers. A bounded context under src/ reaches another
 * only through that context's public index.ts; inside a context, controllers
 * talk to services, services to repositories, repositories to the database.
 * The kernel (common, config, database) depends on no context.
 */
const CONTEXTS =
  'account|audit|auth|calls|console|demo|events|health|idempotency|ingestion|leads|receptionist|recordings|transcripts|webhooks|mail|metrics';

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
      from: { path: '^(src/(cli|app\\.module|create-app|main|migration-check|openapi)|test/)' },
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
      comment: 'A controller calls a service; it never touches a repository or an entity.',
      from: { path: '\\.controller\\.ts$' },
      to: { path: '(\\.repository\\.ts|\\.entity\\.ts|\\.tables\\.ts)$' },
    },
    {
      name: 'typeorm-only-in-storage',
      severity: 'error',
      comment:
        "TypeORM is the data layer's: the kernel (src/database: pool, transactions, migrations, the schema check), a context's " +
        'entities (its tables), repositories (its statements) and module (TypeOrmModule.forFeature). Services, controllers, ' +
        'mappers and the rest work with entity types and repositories, never with TypeORM itself.',
      from: {
        path: '^src/',
        pathNot: [
          '^src/database/',
          '\\.entity\\.ts$',
          '\\.repository\\.ts$',
          '\\.module\\.ts$',
          '^src/(migration-check|sql-snapshots)\\.ts$',
        ],
      },
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
      comment:
        "A context's public index.ts exports no entity and no repository: its tables are its own (a foreign key to another " +
        "context's table names that table, @ForeignKey('orgs', ...), so no entity crosses a boundary).",
      from: { path: `^src/(${CONTEXTS})/index\\.ts$` },
      to: { path: '(\\.repository\\.ts|\\.entity\\.ts|\\.tables\\.ts)$' },
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
