import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';

/** A DataSource with no entities: used to run migrations before the app boots. */
export function migrationDataSource(url: string): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
  });
}

/** The advisory lock (one bigint key, per database) that serialises migration runs. */
export const MIGRATIONS_LOCK_KEY = 727274;

/**
 * Runs pending migrations under an advisory lock, so an `api` and a `worker`
 * starting together against one PostgreSQL do not both migrate.
 */
export async function runMigrations(url: string): Promise<string[]> {
  const ds = migrationDataSource(url);
  await ds.initialize();
  const runner = ds.createQueryRunner();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATIONS_LOCK_KEY]);
    const ran = await ds.runMigrations({ transaction: 'each' });
    return ran.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATIONS_LOCK_KEY]).catch(() => undefined);
    await runner.release();
    await ds.destroy();
  }
}
