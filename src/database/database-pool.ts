import pg from 'pg';
import { HistoryFence } from './history-fence.js';

type ConnectCallback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: Error | boolean) => void) => void;

/**
 * The node-postgres pool TypeORM opens for one app. TypeORM keeps its pool on no public member, so the app hands
 * TypeORM the pg library itself (its documented `driver` option) with a Pool class that reports the pool it makes
 * here; `Database` then checks connections out of that same pool with pg's public API (same connections, same
 * limits), and reads its counts for the pool gauge. Its connections are fenced (history-fence.ts): one to an older
 * history of the database than the process has seen is refused, when made and when checked out.
 */
export class DatabasePool {
  private made: pg.Pool | null = null;
  readonly fence = new HistoryFence();

  /** What TypeORM's PostgreSQL driver uses of the `pg` module: `Pool` (and `defaults`, for its parseInt8 option). */
  readonly driver = { Pool: this.poolClass(), defaults: pg.defaults };

  /** The pool, once TypeORM has opened it. */
  get current(): pg.Pool | null {
    return this.made;
  }

  pool(): pg.Pool {
    if (!this.made) throw new Error('the database pool is not open yet');
    return this.made;
  }

  private poolClass(): typeof pg.Pool {
    const made = (pool: pg.Pool) => {
      this.made = pool;
    };
    const fence = this.fence;
    return class ReportedPool extends pg.Pool {
      constructor(config?: pg.PoolConfig) {
        super({ ...config, Client: fence.clientClass() });
        made(this);
        // PostgreSQL ending a session (a shutdown, a restart) makes node-postgres emit 'error' on its client. The pool
        // listens only while a connection is idle, TypeORM only while its query runner holds one; a connection checked
        // out between statements, or released with an error and still closing, had no listener, and the process
        // ended (the chaos run). The statement that needed it fails on its own and is answered 503, and the pool
        // drops a connection released with an error, so the event itself needs nothing more.
        this.on('connect', (client) => client.on('error', () => undefined));
      }

      override connect(): Promise<pg.PoolClient>;
      override connect(callback: ConnectCallback): void;
      override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
        const checked = super.connect().then((client) => {
          const stale = fence.check(client);
          if (!stale) return client;
          client.release(stale);
          throw stale;
        });
        if (!callback) return checked;
        checked.then(
          (client) => callback(undefined, client, (release) => client.release(release)),
          (err: Error) => callback(err, undefined, () => undefined),
        );
      }
    };
  }
}
