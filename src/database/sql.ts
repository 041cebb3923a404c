import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PoolClient, QueryConfig, QueryResult } from 'pg';
import pg from 'pg';
import { DataSource, type EntityManager, type EntityTarget, type ObjectLiteral, type QueryRunner, type Repository } from 'typeorm';
import { DatabasePool } from './database-pool.js';
import type { SelectList } from './select-list.js';

/** PostgreSQL's isolation levels, as `Database.transaction` takes them. */
export type IsolationLevel = 'READ UNCOMMITTED' | 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/**
 * How a repository runs a hand-written statement, on the pool (`Database`, named `db`) or in a transaction (`Tx`,
 * named `tx`). Rows are typed by the statement's select list (`query(LIST, text, params)`, select-list.ts); a
 * statement whose columns are all computed states its row type (`query<{ n: number }>(text, params)`), and without
 * one its rows are `never`, so reading them fails the build.
 */
export interface Queryable {
  query<R extends object>(rows: SelectList<R>, text: string, params?: readonly unknown[]): Promise<R[]>;
  query<R extends object = never>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** A statement run for its effect: how many rows it inserted, changed or deleted. */
  execute(text: string, params?: readonly unknown[]): Promise<number>;
}

/** A connection that also runs named prepared statements: planned once per connection. */
export interface PreparingQueryable extends Queryable {
  /**
   * Only for fixed statements whose best plan does not depend on the values (a lookup by a unique key, an insert);
   * `name` always goes with the same text.
   */
  prepared<R extends object>(name: string, rows: SelectList<R>, text: string, values: readonly unknown[]): Promise<R[]>;
  prepared<R extends object = never>(name: string, text: string, values: readonly unknown[]): Promise<R[]>;
}

type QueryArgs = [SelectList<object> | string, (string | readonly unknown[])?, (readonly unknown[])?];
type PreparedArgs = [string, SelectList<object> | string, string | readonly unknown[], (readonly unknown[])?];

/** `query`'s two forms to one statement: its text and values. */
const queryConfig = ([first, second, third]: QueryArgs): QueryConfig => {
  if (typeof first === 'string') return { text: first, values: second as unknown[] | undefined };
  return { text: second as string, values: third as unknown[] | undefined };
};

/** `prepared`'s two forms to one named statement. */
const preparedConfig = ([name, second, third, fourth]: PreparedArgs): QueryConfig => {
  if (typeof second === 'string') return { name, text: second, values: third as unknown[] };
  return { name, text: third as string, values: fourth as unknown[] };
};

/**
 * An open transaction. A repository method whose write must be atomic with others takes a `Tx`: only
 * `Database.transaction` makes one, so such a method cannot be given the pool by mistake. Hand-written statements
 * run on it (`query`, `execute`, `prepared`), TypeORM's repositories on it through `getRepository`.
 */
export class Tx implements PreparingQueryable {
  private constructor(private readonly entities: EntityManager) {}

  /** Database.transaction's own door; nothing else wraps a transaction's EntityManager. */
  static of(entities: EntityManager): Tx {
    return new Tx(entities);
  }

  private get runner(): QueryRunner {
    return this.entities.queryRunner!;
  }

  /** The entity's TypeORM repository inside this transaction. */
  getRepository<E extends ObjectLiteral>(entity: EntityTarget<E>): Repository<E> {
    return this.entities.getRepository(entity);
  }

  query<R extends object>(rows: SelectList<R>, text: string, params?: readonly unknown[]): Promise<R[]>;
  query<R extends object = never>(text: string, params?: readonly unknown[]): Promise<R[]>;
  async query<R extends object>(...args: QueryArgs): Promise<R[]> {
    const { text, values } = queryConfig(args);
    return (await this.runner.query(text, values, true)).records as R[];
  }

  async execute(text: string, params?: readonly unknown[]): Promise<number> {
    return (await this.runner.query(text, params as unknown[] | undefined, true)).affected ?? 0;
  }

  prepared<R extends object>(name: string, rows: SelectList<R>, text: string, values: readonly unknown[]): Promise<R[]>;
  prepared<R extends object = never>(name: string, text: string, values: readonly unknown[]): Promise<R[]>;
  async prepared<R extends object>(...args: PreparedArgs): Promise<R[]> {
    // TypeORM's query runner has no named statements; `connect()` (public) is the node-postgres client it holds.
    const client = (await this.runner.connect()) as PoolClient;
    return (await client.query(preparedConfig(args))).rows as R[];
  }
}

/** How the pool's connections stand: its size limit, open, idle, and clients waiting for one. */
export interface PoolStats {
  max: number;
  total: number;
  idle: number;
  waiting: number;
}

/**
 * The database, as services and repositories hold it (`db`): single statements straight on TypeORM's node-postgres
 * pool, without the query runner TypeORM builds around each statement (measured at about 80 µs of CPU a statement,
 * docs/benchmarks.md), for the hot path of every read; transactions on TypeORM's DataSource, each handed to its work
 * as a `Tx`.
 */
@Injectable()
export class Database implements PreparingQueryable {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pools: DatabasePool,
  ) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  transaction<T>(isolation: IsolationLevel, work: (tx: Tx) => Promise<T>): Promise<T>;
  transaction<T>(first: IsolationLevel | ((tx: Tx) => Promise<T>), second?: (tx: Tx) => Promise<T>): Promise<T> {
    if (typeof first === 'function') return this.dataSource.transaction((entities) => first(Tx.of(entities)));
    return this.dataSource.transaction(first, (entities) => second!(Tx.of(entities)));
  }

  query<R extends object>(rows: SelectList<R>, text: string, params?: readonly unknown[]): Promise<R[]>;
  query<R extends object = never>(text: string, params?: readonly unknown[]): Promise<R[]>;
  async query<R extends object>(...args: QueryArgs): Promise<R[]> {
    return (await this.run(queryConfig(args))).rows as R[];
  }

  async execute(text: string, values?: readonly unknown[]): Promise<number> {
    return (await this.run({ text, values: values as unknown[] | undefined })).rowCount ?? 0;
  }

  prepared<R extends object>(name: string, rows: SelectList<R>, text: string, values: readonly unknown[]): Promise<R[]>;
  prepared<R extends object = never>(name: string, text: string, values: readonly unknown[]): Promise<R[]>;
  async prepared<R extends object>(...args: PreparedArgs): Promise<R[]> {
    return (await this.run(preparedConfig(args))).rows as R[];
  }

  /** `prepared`, run for its effect: how many rows it touched. */
  async executePrepared(name: string, text: string, values: readonly unknown[]): Promise<number> {
    return (await this.run({ name, text, values: values as unknown[] })).rowCount ?? 0;
  }

  /** The pool's counts (all zero before it exists), from node-postgres' own Pool. */
  poolStats(): PoolStats {
    const pool = this.pools.current;
    return {
      max: pool?.options.max ?? 0,
      total: pool?.totalCount ?? 0,
      idle: pool?.idleCount ?? 0,
      waiting: pool?.waitingCount ?? 0,
    };
  }

  /** The pg Client class the pool opens its connections with (TypeORM's statements and these alike run on it). */
  poolClientClass(): typeof pg.Client {
    return pg.Client;
  }

  /** Check out, run, give back, as pg's own pool.query does: a connection that failed a statement is not reused. */
  private async run(config: QueryConfig): Promise<QueryResult> {
    const client = await this.pools.pool().connect();
    try {
      const result = await client.query(config);
      client.release();
      return result;
    } catch (err) {
      client.release(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
  }
}
