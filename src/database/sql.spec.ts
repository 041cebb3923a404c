import type { Database, Queryable, Tx } from './sql.js';

// These hold at compile time (the type-check of every spec); each @ts-expect-error fails the build if the
// line below it ever compiles.

declare const db: Database;
declare const tx: Tx;
const atomicWrite = (_tx: Tx): void => undefined;
const read = (_db: Queryable): void => undefined;

describe('the typed path to the data', () => {
  it('a pool is not a transaction: a write that must be atomic cannot be handed the pool', () => {
    const onPool = () => {
      // @ts-expect-error Database (the pool) is not a Tx
      atomicWrite(db);
    };
    const either = () => {
      read(db);
      read(tx);
      atomicWrite(tx);
    };
    expect([typeof onPool, typeof either]).toEqual(['function', 'function']);
  });

  it('a statement without a select list or a stated row type gives rows nothing can be read from', () => {
    const untyped = async () => {
      const [row] = await db.query('SELECT 1 AS n');
      // @ts-expect-error rows of an untyped statement are `never`
      return row.n;
    };
    const typed = async () => {
      const [row] = await db.query<{ n: number }>('SELECT 1 AS n');
      return row.n;
    };
    expect([typeof untyped, typeof typed]).toEqual(['function', 'function']);
  });
});
