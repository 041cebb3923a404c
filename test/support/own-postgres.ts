import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/database/embedded-postgres';
import { runMigrations } from '../../src/database/migrate';
import { freePort } from './net';

/**
 * A real PostgreSQL server of one test file's own (not the run's shared one),
 * migrated, that the test may stop, start again and freeze without touching
 * any other test file.
 */
export class OwnPostgres {
  private server: EmbeddedDatabase | null = null;
  private frozen: number[] = [];
  url = '';

  private constructor(
    private readonly dataDir: string,
    private readonly port: number,
  ) {}

  static async start(): Promise<OwnPostgres> {
    const dir = mkdtempSync(join(tmpdir(), 'own-pg-'));
    chmodSync(dir, 0o777);
    const db = new OwnPostgres(dir, await freePort());
    await db.startServer();
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    // A throw-away cluster: durability buys nothing here.
    for (const setting of ['fsync', 'synchronous_commit']) await admin.query(`ALTER SYSTEM SET ${setting} = off`);
    await admin.query('SELECT pg_reload_conf()');
    await admin.end();
    await runMigrations(db.url);
    return db;
  }

  /** Starts the server again on the same data and port (a restart takes well under a second). */
  async startServer(): Promise<void> {
    this.server = await startEmbeddedPostgres({ dataDir: this.dataDir, port: this.port, database: 'outage' });
    this.url = this.server.url;
  }

  /** A clean shutdown: PostgreSQL ends every session (57P01) and refuses connections until started again. */
  async stopServer(): Promise<void> {
    await this.thaw();
    await this.server?.stop();
    this.server = null;
  }

  /** SIGSTOP the postmaster and every backend: sockets stay open, nothing answers (a hung host). */
  freeze(): void {
    const postmaster = Number(readFileSync(join(this.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    this.frozen = [postmaster, ...childrenOf(postmaster)];
    for (const pid of this.frozen) process.kill(pid, 'SIGSTOP');
  }

  thaw(): Promise<void> {
    for (const pid of this.frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone already
      }
    }
    this.frozen = [];
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await this.stopServer().catch(() => undefined);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Direct children of a process, from /proc (Linux). */
function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}
