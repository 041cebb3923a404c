import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A fresh, migrated database cloned from the run's template; returns its URL. */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  const template = process.env.TEST_PG_TEMPLATE;
  if (!adminUrl || !template) {
    throw new Error(
      'no test database: the unit tier (src/**/*.spec.ts) has none; a spec that needs one is a medium (test/medium/) or e2e spec, run through jest',
    );
  }
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
