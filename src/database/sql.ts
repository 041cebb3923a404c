import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, QueryRunner } from 'typeorm';
import type { IsolationLevel } from 'typeorm/driver/types/IsolationLevel.js';

/**
 * The one way a repository runs SQL: on the pool (`PoolSql`) or inside a
 * transaction (`Tx`). Each query states the type of its rows: a table's row
 * type (`*.tables.ts`), a `Pick<>` of it, or a named result type; without one
 * the rows are `never` and reading them fails the build.
 */
export interface Queryable {
  query<R extends object = never>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** A statement run for its effect: how many rows it inserted, changed or deleted. */
  execute(text: string, params?: readonly unknown[]): Promise<number>;
}

/**
 * An open transaction. A repository method whose write must be atomic with
 * others takes a `Tx`: only `Database.transaction` makes one, so such a method
 * cannot be called on the pool by mistake.
 */
export class Tx implements Queryable {
  private constructor(private readonly runner: QueryRunner) {}

  /** Database.transaction's own door; nothing else wraps a query runner. */
  static of(runner: QueryRunner): Tx {
    return new Tx(runner);
  }

  async query<R extends object = never>(text: string, params?: readonly unknown[]): Promise<R[]> {
    const result = await this.runner.query(text, params as unknown[] | undefined, true);
    return result.records as R[];
  }

  async execute(text: string, params?: readonly unknown[]): Promise<number> {
    const result = await this.runner.query(text, params as unknown[] | undefined, true);
    return result.affected ?? 0;
  }

  /**
   * A named prepared statement on the transaction's connection (TypeORM's runner has none): planned once per
   * connection. Only for fixed statements whose best plan does not depend on the values; `name` always goes
   * with the same text (PoolSql.prepared).
   */
  async prepared<R extends object = never>(name: string, text: string, values: readonly unknown[]): Promise<R[]> {
    const client = (await this.runner.connect()) as PgConnection;
    return (await client.query({ name, text, values: values as unknown[] })).rows as R[];
  }
}

/** The node-postgres client under a TypeORM PostgreSQL query runner. */
interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Transactions on TypeORM's DataSource (its pool, its query runners), each handed to the work as a `Tx`. */
@Injectable()
export class Database {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  transaction<T>(isolation: IsolationLevel, work: (tx: Tx) => Promise<T>): Promise<T>;
  transaction<T>(first: IsolationLevel | ((tx: Tx) => Promise<T>), second?: (tx: Tx) => Promise<T>): Promise<T> {
    if (typeof first === 'function') return this.dataSource.transaction((manager) => first(Tx.of(manager.queryRunner!)));
    return this.dataSource.transaction(first, (manager) => second!(Tx.of(manager.queryRunner!)));
  }
}
