import { computed, type SelectList } from './select-list.js';
import type { Queryable, Tx } from './sql.js';

/**
 * Sync-safe `updated_at` and `as_of` (docs/decisions.md, "Sync").
 *
 * Pollers keep the first page's `as_of` and pass it as the next run's
 * `updated_since`. That is safe only if every change a page did not see
 * carries an `updated_at` at or after that page's `as_of`. Two halves make it
 * true whatever the commit delay:
 *
 * - Writers call `beginChange` before writing: it makes the transaction take
 *   its xid at once. Every `updated_at` they then write is clock_timestamp()
 *   evaluated in the writing statement, so from the moment a stamp exists
 *   until commit the writer is visible in pg_stat_activity with an xid and an
 *   xact_start no later than the stamp. (Evaluated in the statement, after
 *   any lock wait, the stamps of successive writers of a row also increase.)
 * - Readers call `readAsOf` BEFORE the statement that reads the page (so the
 *   page's snapshot is taken after it): as_of = least(clock - margin,
 *   xact_start of every other transaction in this database holding an xid).
 *   A change the page misses either belonged to a writer holding its xid at
 *   that moment (then as_of <= its xact_start <= its stamp) or took its xid
 *   later (then its stamp is later than the moment, hence later than as_of).
 */
export async function beginChange(tx: Tx): Promise<void> {
  await tx.execute('SELECT pg_current_xact_id()');
}

/**
 * Which writers can still commit: every transaction of this database holding
 * an xid, except the caller. Reads pg_stat_get_activity() directly (the
 * pg_stat_activity view joins pg_database and pg_authid on every call). The
 * service's role must see its own sessions' xact_start, which any role does;
 * other roles writing these tables would need pg_read_all_stats.
 */
const OPEN_WRITERS = `
  SELECT min(a.xact_start) FROM pg_stat_get_activity(NULL) a
   WHERE a.datid = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND a.backend_xid IS NOT NULL AND a.pid <> pg_backend_pid()`;

/**
 * The page's `as_of` (ISO 8601 UTC, milliseconds, rounded down). Must run as its
 * own statement before the page query (READ COMMITTED, or no transaction), so
 * the page's snapshot is taken after it; never inside a REPEATABLE READ
 * transaction whose snapshot is older.
 */
export async function readAsOf(db: Queryable, marginMs: number): Promise<string> {
  const column = asOfColumn('$1');
  const [row] = await db.query(column, `SELECT ${column}`, [marginMs]);
  return row.asOf;
}

/**
 * readAsOf's column (`asOf`), for a statement that reads something else
 * with it (the key's standing, src/auth/key-standing.ts); `marginParam` holds the
 * margin in ms. The same rule holds: that statement runs before the page's.
 */
export const asOfColumn = (marginParam: string): SelectList<{ asOf: string }> =>
  computed(`to_char(date_trunc('milliseconds', least(clock_timestamp() - make_interval(secs => ${marginParam}::float8 / 1000), (${OPEN_WRITERS}))) AT TIME ZONE 'UTC',
           'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "asOf"`);
