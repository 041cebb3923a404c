// Runs outside Jest's module system: it loads the TypeScript sources through ts-hooks.mjs, so the template is
// migrated from migrations/ as they are now (no build needed, and never a stale compiled migration).
import { chmodSync, mkdtempSync } from 'node:fs';
import { register } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const sources = new URL('../../src/database/', import.meta.url);

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * Stress mode (TEST_HOLD_XMIN_MS=1500 npm test): a writing transaction stays open in the cluster for the
 * whole run, re-opened every `ms`, as a parallel test file or a long writer in production would. The events
 * log then holds new events back for up to `ms`; a test that reads it without waiting for what it wrote fails.
 */
function holdXmin(adminUrl, ms) {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'test-xmin-holder' });
  let running = true;
  const done = (async () => {
    await client.connect();
    while (running) {
      await client.query('BEGIN');
      await client.query('SELECT pg_current_xact_id()');
      await new Promise((resolve) => setTimeout(resolve, ms));
      await client.query('COMMIT');
    }
    await client.end();
  })();
  return async () => {
    running = false;
    await done;
  };
}

/**
 * One real PostgreSQL for the whole run (embedded, or TEST_DATABASE_URL's server),
 * with a migrated template database; each test file clones it (test/support/database.ts).
 * The medium and e2e projects name this file; Jest runs it once for both, and not at all for the unit tier alone.
 */
export default async function globalSetup() {
  register('./ts-hooks.mjs', import.meta.url);
  const { startEmbeddedPostgres } = await import(new URL('embedded-postgres.ts', sources).href);
  const { runMigrations } = await import(new URL('migrate.ts', sources).href);
  const { stockDatabases } = await import(new URL('database-stock.ts', import.meta.url).href);
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'receptionist-test-'));
    chmodSync(dir, 0o777);
    const db = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), database: 'postgres' });
    globalThis.__testPg = db;
    globalThis.__testPgDir = dir;
    adminUrl = db.url;
    // A throw-away cluster: durability buys nothing here and costs a flush per commit.
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    for (const setting of ['fsync', 'synchronous_commit', 'full_page_writes']) await admin.query(`ALTER SYSTEM SET ${setting} = off`);
    await admin.query('SELECT pg_reload_conf()');
    await admin.end();
  }
  const template = `tpl_${process.pid}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${template}`);
  await client.query(`CREATE DATABASE ${template}`);
  await client.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  await runMigrations(templateUrl.toString());
  // Clones made ahead while the files run: a file takes one instead of waiting for its own (test/support/database.ts).
  globalThis.__stopDatabaseStock = await stockDatabases(adminUrl, template);
  // Every log line of the run lands here (test/support/run-log.ts); global-teardown.mjs searches it for secrets.
  process.env.TEST_LOG_DIR = mkdtempSync(join(tmpdir(), 'receptionist-test-logs-'));
  if (process.env.TEST_HOLD_XMIN_MS) globalThis.__xminHolder = holdXmin(adminUrl, Number(process.env.TEST_HOLD_XMIN_MS));
  // Workers append the (operationId, status) pairs they exercise here; global-teardown reports the rest.
  process.env.TEST_CONFORMANCE_DIR = mkdtempSync(join(tmpdir(), 'conformance-'));
  process.env.TEST_PG_ADMIN_URL = adminUrl;
  process.env.TEST_PG_TEMPLATE = template;
}
