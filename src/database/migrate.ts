import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';
import { NAMING_STRATEGY } from './naming-strategy.js';

/** A DataSource with no entities: used to run migrations before the app boots. */
export function migrationDataSource(url: string): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    namingStrategy: NAMING_STRATEGY,
    synchronize: false,
    logging: false,
  });
}

/** A process's first connection at boot: tried this often, this far apart (as TypeORM's module does for the app). */
export const BOOT_CONNECT_TRIES = 10;
export const BOOT_CONNECT_DELAY_MS = 3000;

/**
 * The migrations' DataSource, connected: a process started with PostgreSQL, or on a loaded machine, waits for it
 * (BOOT_CONNECT_TRIES, BOOT_CONNECT_DELAY_MS apart) rather than exit at the first refusal or timeout.
 */
async function connectAtBoot(url: string): Promise<DataSource> {
  for (let attempt = 1; ; attempt++) {
    const ds = migrationDataSource(url);
    try {
      return await ds.initialize();
    } catch (err) {
      if (attempt >= BOOT_CONNECT_TRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, BOOT_CONNECT_DELAY_MS));
    }
  }
}

/** The advisory lock (one bigint key, per database) that serialises migration runs. */
export const MIGRATIONS_LOCK_KEY = 727274;

/**
 * Runs pending migrations under an advisory lock, so an `api` and a `worker`
 * starting together against one PostgreSQL do not both migrate.
 */
export async function runMigrations(url: string): Promise<string[]> {
  const ds = await connectAtBoot(url);
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
