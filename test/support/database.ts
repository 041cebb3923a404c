import pg from 'pg';
import { cloneStatement, newDatabaseName, STOCK_TABLE } from './database-stock';

/**
 * A fresh, migrated database cloned from the run's template; returns its URL. One the global setup made ahead is
 * taken when there is one (test/support/database-stock.mjs), else it is cloned now.
 */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  const template = process.env.TEST_PG_TEMPLATE;
  if (!adminUrl || !template) {
    throw new Error(
      'no test database: the unit tier (src/**/*.spec.ts) has none; a spec that needs one is a medium (test/medium/) or e2e spec, run through jest',
    );
  }
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  let name: string;
  try {
    const { rows } = await client.query<{ name: string }>(
      `DELETE FROM ${STOCK_TABLE} WHERE name = (SELECT name FROM ${STOCK_TABLE} ORDER BY made_at LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING name`,
    );
    name = rows[0]?.name ?? newDatabaseName();
    if (rows.length === 0) await client.query(cloneStatement(name, template));
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
