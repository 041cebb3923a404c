import type { AppConfig } from '../config/app-config.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { runMigrations } from './migrate.js';

export interface PreparedDatabase {
  url: string;
  /** True when this process started an embedded server with a fresh cluster or joined one. */
  embedded: boolean;
  migrationsRan: string[];
  stop(): Promise<void>;
}

/** DATABASE_URL when set; otherwise a real PostgreSQL under DATA_DIR. Then pending migrations. */
export async function prepareDatabase(
  config: AppConfig,
  log: (line: string) => void,
  opts: { stopsOnSignals?: boolean } = {},
): Promise<PreparedDatabase> {
  let url = config.databaseUrl;
  let stop = async () => undefined as void;
  if (url === null) {
    const db = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, log, ...opts });
    url = db.url;
    stop = db.stop;
  }
  try {
    const migrationsRan = await runMigrations(url);
    return { url, embedded: config.databaseUrl === null, migrationsRan, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
