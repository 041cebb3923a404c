import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import type { MIGRATIONS } from '../../migrations';
import { NAMING_STRATEGY } from '../../src/database/naming-strategy';

/**
 * A database migrated by exactly the given migrations (a prefix of MIGRATIONS), so a test can seed rows in the
 * shape an older release wrote and then run a later migration over them: a new empty database on the run's
 * server, or `url` migrated further.
 */
export async function databaseWith(migrations: typeof MIGRATIONS, url?: string): Promise<string> {
  let target = url;
  if (!target) {
    const admin = new pg.Client({ connectionString: process.env.TEST_PG_ADMIN_URL });
    const name = `mig_${randomBytes(6).toString('hex')}`;
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(process.env.TEST_PG_ADMIN_URL!);
    u.pathname = `/${name}`;
    target = u.toString();
  }
  const ds = new DataSource({
    type: 'postgres',
    url: target,
    migrations,
    migrationsTableName: 'migrations',
    namingStrategy: NAMING_STRATEGY,
    logging: false,
  });
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
  return target;
}

/** MIGRATIONS up to and including `last`. */
export const migrationsThrough = (all: typeof MIGRATIONS, last: (typeof MIGRATIONS)[number]): typeof MIGRATIONS =>
  all.slice(0, all.indexOf(last) + 1);
