import pg from 'pg';

/**
 * The node-postgres pool TypeORM opens for one app. TypeORM keeps its pool on no public member, so the app hands
 * TypeORM the pg library itself (its documented `driver` option) with a Pool class that reports the pool it makes
 * here; `Database` then checks connections out of that same pool with pg's public API (same connections, same
 * limits), and reads its counts for the pool gauge.
 */
export class DatabasePool {
  private made: pg.Pool | null = null;

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
    return class ReportedPool extends pg.Pool {
      constructor(config?: pg.PoolConfig) {
        super(config);
        made(this);
        // PostgreSQL ending a session (a shutdown, a restart) makes node-postgres emit 'error' on its client. The pool
        // listens only while a connection is idle, TypeORM only while its query runner holds one; a connection checked
        // out between statements, or released with an error and still closing, had no listener, and the process
        // ended (the chaos run). The statement that needed it fails on its own and is answered 503, and the pool
        // drops a connection released with an error, so the event itself needs nothing more.
        this.on('connect', (client) => client.on('error', () => undefined));
      }
    };
  }
}
