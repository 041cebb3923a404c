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
      }
    };
  }
}
