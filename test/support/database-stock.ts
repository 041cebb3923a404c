import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Clones kept ready: one per Jest worker is taken at a time, and a clone takes 0.1 to 1 s on the 2-core machine. */
const READY = 4;
/** How often the stock is looked at while it is full. */
const POLL_MS = 100;

/** The table (in the server's admin database) listing the ready clones; a test file takes one with claimStockDatabase. */
export const STOCK_TABLE = 'test_database_stock';

/** `CREATE DATABASE` of a clone of the template: FILE_COPY (a copy of its files) takes a third of WAL_LOG's time here. */
export const cloneStatement = (name: string, template: string): string => `CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`;

export const newDatabaseName = () => `t_${randomBytes(6).toString('hex')}`;

/**
 * Keeps READY clones of the migrated template made ahead, so a test file does not wait for its database: each one
 * that is taken (test/support/database.ts) is replaced in the background, while the files run. Returns stop().
 */
export async function stockDatabases(adminUrl: string, template: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'test-database-stock' });
  await client.connect();
  await client.query(`CREATE TABLE IF NOT EXISTS ${STOCK_TABLE} (name text PRIMARY KEY, made_at timestamptz NOT NULL DEFAULT now())`);
  let running = true;
  const done = (async () => {
    while (running) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${STOCK_TABLE}`);
      if (rows[0].n >= READY) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        continue;
      }
      const name = newDatabaseName();
      await client.query(cloneStatement(name, template));
      await client.query(`INSERT INTO ${STOCK_TABLE} (name) VALUES ($1)`, [name]);
    }
  })();
  // A failure of the stock (a full disk) leaves the files to clone for themselves; it is reported at the end.
  const result = done.then(
    () => null,
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
  return async () => {
    running = false;
    const err = await result;
    await client.end().catch(() => undefined);
    if (err) process.stderr.write(`test database stock stopped early: ${err.message}\n`);
  };
}
