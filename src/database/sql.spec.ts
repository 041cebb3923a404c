import type { PoolSql } from './pool-sql.js';
import type { Queryable, Tx } from './sql.js';
import type { ColumnsOf } from './tables.js';

// These hold at compile time (the type-check of every spec); each @ts-expect-error fails the build if the
// line below it ever compiles.

declare const pool: PoolSql;
declare const tx: Tx;
const atomicWrite = (_tx: Tx): void => undefined;
const read = (_sql: Queryable): void => undefined;

interface ExampleRow {
  id: string;
  attempts: number | null;
  started_at: Date;
}

describe('the typed path to the data', () => {
  it('a pool is not a transaction: a write that must be atomic cannot be handed the pool', () => {
    const onPool = () => {
      // @ts-expect-error PoolSql is not a Tx
      atomicWrite(pool);
    };
    const either = () => {
      read(pool);
      read(tx);
      atomicWrite(tx);
    };
    expect([typeof onPool, typeof either]).toEqual(['function', 'function']);
  });

  it('a column list names every member of its row type, with a type and nullability that fit it', () => {
    const fits: ColumnsOf<ExampleRow> = { id: 'uuid', attempts: 'integer null', started_at: 'timestamp with time zone' };
    // @ts-expect-error started_at is missing
    const missing: ColumnsOf<ExampleRow> = { id: 'uuid', attempts: 'integer null' };
    // @ts-expect-error attempts admits null, so its column must be nullable
    const notNull: ColumnsOf<ExampleRow> = { id: 'uuid', attempts: 'integer', started_at: 'timestamp with time zone' };
    // @ts-expect-error a string member is not an integer column
    const wrongType: ColumnsOf<ExampleRow> = { id: 'integer', attempts: 'integer null', started_at: 'timestamp with time zone' };
    expect([fits, missing, notNull, wrongType].map((c) => Object.keys(c).length)).toEqual([3, 2, 3, 3]);
  });
});
