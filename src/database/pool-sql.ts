import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolClient, QueryConfig, QueryResult } from 'pg';
import { DataSource } from 'typeorm';
import type { Queryable } from './sql.js';

/**
 * The part of TypeORM's PostgresDriver this uses: its public way to check a connection out of its pool, and
 * the pool itself (`master`, declared but untyped), whose counts no TypeORM API reports.
 */
interface PooledDriver {
  obtainMasterConnection(): Promise<[PoolClient, (err?: Error) => void]>;
  master?: { totalCount: number; idleCount: number; waitingCount: number; options?: { max?: number }; Client?: unknown };
}

/** How the pool's connections stand: its size limit, open, idle, and clients waiting for one. */
export interface PoolStats {
  max: number;
  total: number;
  idle: number;
  waiting: number;
}

/**
 * Single statements on the hot path of every read (key lookup, the firm's
 * timezone, as_of, the page, the read's audit rows) straight on TypeORM's own
 * pg pool: same connections and limits, without the query runner TypeORM
 * builds around each statement (measured at about 80 µs of CPU a statement,
 * docs/benchmarks.md). Never for transactions: those are `Tx` (sql.ts).
 */
@Injectable()
export class PoolSql implements Queryable {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The pool's counts (all zero before it exists); the database kernel is the one place that knows the driver. */
  poolStats(): PoolStats {
    const pool = this.driver().master;
    return {
      max: pool?.options?.max ?? 0,
      total: pool?.totalCount ?? 0,
      idle: pool?.idleCount ?? 0,
      waiting: pool?.waitingCount ?? 0,
    };
  }

  /** The pg Client class the pool opens its connections with (TypeORM's and PoolSql's statements alike run on it); null before the pool exists. */
  poolClientClass(): unknown {
    return this.driver().master?.Client ?? null;
  }

  async query<R extends object = never>(text: string, values?: readonly unknown[]): Promise<R[]> {
    return (await this.run({ text, values: values as unknown[] | undefined })).rows as R[];
  }

  async execute(text: string, values?: readonly unknown[]): Promise<number> {
    return (await this.run({ text, values: values as unknown[] | undefined })).rowCount ?? 0;
  }

  /**
   * A named prepared statement: each connection parses and plans it once.
   * Only for fixed statements whose best plan does not depend on the values
   * (a lookup by unique key, an insert); `name` must always go with the same text.
   */
  async prepared<R extends object = never>(name: string, text: string, values: readonly unknown[]): Promise<R[]> {
    return (await this.run({ name, text, values: values as unknown[] })).rows as R[];
  }

  /** `prepared`, run for its effect: how many rows it touched. */
  async executePrepared(name: string, text: string, values: readonly unknown[]): Promise<number> {
    return (await this.run({ name, text, values: values as unknown[] })).rowCount ?? 0;
  }

  private driver(): PooledDriver {
    return this.dataSource.driver as unknown as PooledDriver;
  }

  /** Check out, run, give back, as pg's own pool.query does: a connection that failed a statement is not reused. */
  private async run(config: QueryConfig): Promise<QueryResult> {
    const [client, release] = await this.driver().obtainMasterConnection();
    // A checked-out pg client emits 'error' when its connection drops (an outage); with no listener that is an
    // uncaught exception that ends the process. The failed query rejects below and is answered 503 from there;
    // once released, the pool's own listener takes over.
    const onConnectionError = () => undefined;
    client.on('error', onConnectionError);
    try {
      const result = await client.query(config);
      client.removeListener('error', onConnectionError);
      release();
      return result;
    } catch (err) {
      client.removeListener('error', onConnectionError);
      release(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
  }
}
