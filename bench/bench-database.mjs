import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.mjs';
import { serverFlags } from './pg-statements.mjs';

/**
 * A fresh, empty database for one benchmark run: on BENCH_DATABASE_URL's server when set, else on an embedded
 * PostgreSQL started for the run (the compiled service's own starter). `stop()` stops that server, if any, and removes
 * its temp folder (a full growth run leaves gigabytes there otherwise).
 */
export async function benchDatabase(prefix) {
  let adminUrl = process.env.BENCH_DATABASE_URL;
  let stop = async () => undefined;
  if (!adminUrl) {
    const { startEmbeddedPostgres } = await import(new URL('../dist/src/database/embedded-postgres.js', import.meta.url).href);
    const dir = mkdtempSync(join(tmpdir(), `${prefix}-pg-`));
    // The embedded server runs as the unprivileged postgres user when started by root.
    chmodSync(dir, 0o777);
    const db = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), database: 'postgres', flags: serverFlags() });
    adminUrl = db.url;
    stop = async () => {
      try {
        await db.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
  }
  const name = `${prefix.replace(/-/g, '_')}_${randomBytes(3).toString('hex')}`;
  return { databaseUrl: await createDatabase(adminUrl, name), stop };
}

/** A new empty database `name` on the server of `serverUrl` (any database's URL there); resolves to its URL. */
export async function createDatabase(serverUrl, name) {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
