import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';

/** Runs one statement and resolves to its rows: TypeORM's EntityManager fits, and so does PoolSql. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<any>;
}

/**
 * Single statements on the hot path of every read (key lookup, the firm's
 * timezone, as_of, the page, the read's audit rows) straight on TypeORM's own
 * pg pool: same connections and limits, without the query runner TypeORM
 * builds around each statement (measured at about 80 µs of CPU a statement,
 * docs/benchmarks.md). Never for transactions: those stay on the EntityManager.
 */
@Injectable()
export class PoolSql implements Queryable {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  async query<T extends QueryResultRow = any>(text: string, values?: unknown[]): Promise<T[]> {
    return (await this.pool.query<T>(text, values)).rows;
  }

  /**
   * A named prepared statement: each connection parses and plans it once.
   * Only for fixed statements whose best plan does not depend on the values
   * (a lookup by unique key, an insert); `name` must always go with the same text.
   */
  async prepared<T extends QueryResultRow = any>(name: string, text: string, values: unknown[]): Promise<T[]> {
    return (await this.pool.query<T>({ name, text, values })).rows;
  }
}
