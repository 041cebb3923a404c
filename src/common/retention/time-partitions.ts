import { DummyValue, GenerateSql } from '../../database/generate-sql.js';
import type { SelectList } from '../../database/select-list.js';
import { SqlParams, type SqlCondition } from '../../database/sql-params.js';
import type { Queryable } from '../../database/sql.js';

export const DAY_MS = 86_400_000;

/** One partition of a table partitioned by day: its name and the instant its range ends (null: the DEFAULT partition). */
export interface PartitionBounds {
  name: string;
  upper: Date | null;
}

/** Runs work in one transaction (Database.transaction in the service; a plain pg client in a bench, see `pgTransactions`). */
export type InTransaction = <T>(work: (tx: Queryable) => Promise<T>) => Promise<T>;

/** The UTC day holding `at`, as its first instant. */
export const utcDay = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

/** `events_p20261125`: the same names the migration gives (migrations/1764100000000-time-partitions.ts). */
export const dayPartitionName = (table: string, day: Date): string => `${table}_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;

/** Attempts of a change that needs the table's lock before giving up until the next run. */
const LOCK_ATTEMPTS = 20;
/**
 * How long one attempt may wait for the table's lock. While a DDL statement waits, reads queue behind it, so
 * the wait is short; a busy moment costs a retry, never a read stalled for longer than this.
 */
const LOCK_TIMEOUT = '100ms';
const LOCK_NOT_AVAILABLE = '55P03';

/** Postgres error code of a thrown driver error, if any. */
const codeOf = (err: unknown): unknown => (err as { code?: unknown } | null)?.code;

/**
 * The partitions of the tables that grow with time, and the three changes made to them: create a day's
 * partition ahead, drop a day past retention, delete stray rows from the DEFAULT partition. A drop takes the
 * parent's ACCESS EXCLUSIVE lock for a catalog change only (milliseconds); `DETACH ... CONCURRENTLY` would
 * avoid it but PostgreSQL refuses it on a table with a DEFAULT partition, which is what lets an insert with
 * any date succeed. So each change runs under a short lock_timeout and is retried (docs/decisions.md).
 */
export class TimePartitions {
  constructor(private readonly inTransaction: InTransaction) {}

  /** Every partition of `table` with the end of its range. */
  @GenerateSql({ params: ['events'] })
  async list(table: string): Promise<PartitionBounds[]> {
    return this.inTransaction((tx) =>
      tx.query<PartitionBounds>(
        `SELECT c.relname AS name,
                (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS upper
           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = $1::regclass ORDER BY upper NULLS FIRST`,
        [table],
      ),
    );
  }

  /** The partition key column of `table` (`RANGE (occurred_at)` → occurred_at). */
  @GenerateSql({ params: ['events'], rows: { key: 'occurred_at' } })
  async keyOf(table: string): Promise<string> {
    const [row] = await this.inTransaction((tx) =>
      tx.query<{ key: string }>(`SELECT substring(pg_get_partkeydef($1::regclass) FROM '^RANGE \\((\\w+)\\)$') AS key`, [table]),
    );
    if (!row?.key) throw new Error(`${table} is not partitioned by range on one column`);
    return row.key;
  }

  /**
   * Creates the partition of `day` unless it exists; rows the DEFAULT partition holds for that day move into
   * it (so attaching never fails on them). Returns whether it was created.
   */
  @GenerateSql({ params: ['events', DummyValue.DATE], rows: { key: 'occurred_at', exists: false, storage: 'fillfactor=80' } })
  async ensureDay(table: string, day: Date): Promise<boolean> {
    const name = dayPartitionName(table, day);
    const key = await this.keyOf(table);
    const next = new Date(day.getTime() + DAY_MS);
    return this.withShortLock(table, async (tx) => {
      const [{ exists }] = await tx.query<{ exists: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS exists`, [name]);
      if (exists) return false;
      const [{ storage }] = await tx.query<{ storage: string | null }>(
        `SELECT array_to_string(reloptions, ', ') AS storage FROM pg_class WHERE oid = $1::regclass`,
        [`${table}_default`],
      );
      await tx.execute(
        `CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)${storage ? ` WITH (${storage})` : ''}`,
      );
      await tx.execute(
        `WITH moved AS (DELETE FROM ${table}_default WHERE ${key} >= $1 AND ${key} < $2 RETURNING *) INSERT INTO ${name} SELECT * FROM moved`,
        [day, next],
      );
      await tx.execute(
        `ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM ($$${day.toISOString()}$$) TO ($$${next.toISOString()}$$)`,
      );
      return true;
    });
  }

  /**
   * Drops one partition (all its rows at once), emptied first under its own lock only. Removing a full day's
   * files and its pages in shared buffers is the slow part of a drop (about 15 ms for a day of audit rows), and a
   * DROP holds the parent's ACCESS EXCLUSIVE lock until it commits, so every insert into the table (each read's
   * audit row) would wait that long; TRUNCATE of the partition takes no lock on the parent, and the DROP of the
   * emptied table then commits in about a millisecond (docs/benchmarks.md, "Growth").
   */
  @GenerateSql({ params: ['events', 'events_p20260101'], rows: { exists: true } })
  async drop(table: string, partition: string): Promise<void> {
    await this.withShortLock(table, async (tx) => {
      const [{ exists }] = await tx.query<{ exists: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS exists`, [partition]);
      if (exists) await tx.execute(`TRUNCATE ${partition}`);
    });
    await this.withShortLock(table, (tx) => tx.execute(`DROP TABLE IF EXISTS ${partition}`));
  }

  /**
   * Drops the partition holding `day` of `table` and says how long it took (the growth bench times this);
   * false when there was none.
   */
  async dropDay(table: string, day: Date): Promise<{ dropped: boolean; ms: number }> {
    const name = dayPartitionName(table, utcDay(day));
    const started = performance.now();
    const found = (await this.list(table)).some((p) => p.name === name);
    if (found) await this.drop(table, name);
    return { dropped: found, ms: performance.now() - started };
  }

  /** Whether any row of this partition matches `where` (a partition still holding rows that must stay is kept). */
  @GenerateSql({ params: ['mail_outbox_p20260101', () => `status = 'pending'`], rows: 'one' })
  async holds(partition: string, where: SqlCondition): Promise<boolean> {
    const params = new SqlParams();
    const text = `SELECT EXISTS (SELECT 1 FROM ${partition} WHERE ${where(params)}) AS held`;
    const [row] = await this.inTransaction((tx) => tx.query<{ held: boolean }>(text, params.values));
    return row.held;
  }

  /** One bounded DELETE of rows matching `where` in one partition (the DEFAULT one's strays, or a kept partition's finished rows). */
  @GenerateSql({ params: ['events_default', (params: SqlParams) => `occurred_at < ${params.add(DummyValue.DATE)}`, 1000] })
  async deleteBatch(partition: string, where: SqlCondition, batchSize: number): Promise<number> {
    const params = new SqlParams();
    const condition = where(params);
    const text = `DELETE FROM ${partition} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${partition} WHERE ${condition} LIMIT ${params.add(batchSize)})) AND ${condition}`;
    return this.inTransaction((tx) => tx.execute(text, params.values));
  }

  /** One change to `table`'s partitions: serialised across processes, under a short lock_timeout, retried while the lock is busy. */
  private async withShortLock<T>(table: string, work: (tx: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.inTransaction(async (tx) => {
          await tx.query<{ locked: string }>(`SELECT pg_advisory_xact_lock(hashtext('time-partitions'), hashtext($1))::text AS locked`, [
            table,
          ]);
          await tx.query<{ set: string }>(`SELECT set_config('lock_timeout', $1, true) AS set`, [LOCK_TIMEOUT]);
          return work(tx);
        });
      } catch (err) {
        if (codeOf(err) !== LOCK_NOT_AVAILABLE || attempt >= LOCK_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
      }
    }
  }
}

/** What a node-postgres client answers to a statement (rows of an unstated type: the caller states it). */
interface PgResult {
  rows: object[];
  rowCount: number | null;
}

/** node-postgres' client as `InTransaction`, for a bench that times `dropDay` without starting the service. */
export function pgTransactions(client: {
  query<R extends PgResult = PgResult>(text: string, params?: unknown[]): Promise<R>;
}): InTransaction {
  const run = (text: string, params?: readonly unknown[]) => client.query<PgResult>(text, params as unknown[] | undefined);
  const tx: Queryable = {
    query: async <R extends object>(first: SelectList<R> | string, second?: string | readonly unknown[], third?: readonly unknown[]) =>
      (typeof first === 'string' ? await run(first, second as readonly unknown[]) : await run(second as string, third)).rows as R[],
    execute: async (text: string, params?: readonly unknown[]) => (await run(text, params)).rowCount ?? 0,
  };
  return async (work) => {
    await run('BEGIN');
    try {
      const result = await work(tx);
      await run('COMMIT');
      return result;
    } catch (err) {
      await run('ROLLBACK');
      throw err;
    }
  };
}
