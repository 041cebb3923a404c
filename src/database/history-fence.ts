import { Logger } from '@nestjs/common';
import pg from 'pg';

/** A connection refused because its server is on an older history of the database than this process has seen. */
export class StaleHistoryError extends Error {
  readonly code = 'stale_history';
}

/** Where a connection's server stands: its lineage (log_lineage()) and history (log_history()); null: not known. */
export interface HistoryReading {
  lineage: string | null;
  history: number | null;
}

/**
 * A stale primary cannot silently rewind this process. Each new connection reads which history of the database its
 * server is on (`log_history()`, migrations/1764300000000-log-histories.ts); the newest one seen is kept, and a
 * connection to an older one (an old primary restarted after a failover, reached through an old DNS answer) is
 * refused, as is any pooled connection to one, so the process answers 503 until it reaches the newer history again.
 * A different lineage (a database made apart from this one) starts over, with a warning.
 */
export class HistoryFence {
  private readonly logger = new Logger('Database');
  private lineage: string | null = null;
  private newest = 0;
  private readonly readings = new WeakMap<pg.ClientBase, number>();

  /** Throws StaleHistoryError when `reading` is older than the newest history seen; else remembers it. */
  admit(client: pg.ClientBase, reading: HistoryReading): void {
    if (reading.lineage === null || reading.history === null) return;
    if (reading.lineage !== this.lineage) {
      if (this.lineage !== null)
        this.logger.warn({ lineage: reading.lineage }, 'the database is not the one this process used before; its history starts over');
      this.lineage = reading.lineage;
      this.newest = 0;
    }
    if (reading.history < this.newest) throw this.refusal(reading.history);
    if (reading.history > this.newest) {
      if (this.newest > 0)
        this.logger.warn({ history: reading.history, was: this.newest }, 'the database moved to a new history (a promotion)');
      this.newest = reading.history;
    }
    this.readings.set(client, reading.history);
  }

  /** A pooled connection admitted before a newer history was seen: refused now. */
  check(client: pg.ClientBase): StaleHistoryError | null {
    const history = this.readings.get(client);
    return history !== undefined && history < this.newest ? this.refusal(history) : null;
  }

  /** The pg Client class whose connect() reads its server's history and is refused by this fence. */
  clientClass(): typeof pg.Client {
    const admit = (client: pg.ClientBase, reading: HistoryReading) => this.admit(client, reading);
    return class FencedClient extends pg.Client {
      override connect(): Promise<void>;
      override connect(callback: (err: Error) => void): void;
      override connect(callback?: (err: Error) => void): Promise<void> | void {
        // Nobody else listens for this connection's 'error' until the pool takes it: a server ending the session just
        // after it is ready (a shutdown's FATAL in the same packet as ReadyForQuery, before the history read starts),
        // during that read, or just after it is refused would emit one unheard and end the process. The read fails
        // with the same error; later ones the pool and its users hear too (database-pool.ts listens the same way).
        this.on('error', () => undefined);
        const admitted = super.connect().then(() => this.admitted());
        if (!callback) return admitted;
        admitted.then(() => callback(undefined as unknown as Error), callback);
      }

      private async admitted(): Promise<void> {
        try {
          admit(this, await readHistory(this));
        } catch (err) {
          await this.end().catch(() => undefined);
          throw err;
        }
      }
    };
  }

  private refusal(history: number): StaleHistoryError {
    return new StaleHistoryError(
      `the database server is on history ${history}, older than history ${this.newest} this process has seen (an old primary after a failover); refused until the newer is reachable`,
    );
  }
}

/** The server's history and lineage; both null on a database not yet migrated (the functions do not exist yet). */
async function readHistory(client: pg.Client): Promise<HistoryReading> {
  try {
    const { rows } = await client.query<HistoryReading>('SELECT log_lineage() AS lineage, log_history() AS history');
    return rows[0];
  } catch (err) {
    if ((err as { code?: string }).code === '42883') return { lineage: null, history: null };
    throw err;
  }
}
