import { computed, selectList, type RowOf, type SelectList } from '../database/select-list.js';
import type { PreparingQueryable, Queryable } from '../database/sql.js';
import { ApiKeyEntity } from './entities/api-key.entity.js';

/**
 * The calling key's standing, read inside the statement that reads the data, so a principal cached by the process is
 * re-checked on every request, in the same snapshot as the data: the key's revocation and expiry, and the firm's
 * timezone, which every answer carries. Another context reads it through `readWithKeyStanding` (auth's index.ts),
 * giving its own select list and join; the SQL of the standing stays here. KeyStanding (key-standing.service.ts)
 * judges it.
 */
export const STANDING = selectList(ApiKeyEntity, 'standing_key', ['revokedAt', 'expiresAt'], 'key').and(
  // orgs is the account context's table: its timezone is read here as a named column, not through its entity.
  computed<{ firmTimezone: string }>('standing_firm.timezone AS "firmTimezone"'),
);
export type KeyStandingRow = RowOf<typeof STANDING>;

/**
 * A statement reading `columns` (the standing's first) from the key and its firm, with `join` LEFT JOINed when given:
 * that key, of that firm ($1, $2: the principal's; a key moved to another firm finds no row).
 */
export const standingStatement = (columns: SelectList<object>, join: string | null): string =>
  `SELECT ${columns} FROM api_keys standing_key JOIN orgs standing_firm ON standing_firm.id = standing_key.org_id` +
  `${join === null ? '' : ` LEFT JOIN ${join}`} WHERE standing_key.id = $1 AND standing_key.org_id = $2`;

/** Whose standing: the principal's key and firm. */
export interface KeyCaller {
  keyId: string;
  orgId: string;
}

/** A read of at most one row joined to the standing. */
export interface StandingRead<R extends object> {
  /** The prepared statement's name (its text is fixed by the rest). */
  name: string;
  /** The row's columns. */
  columns: SelectList<R>;
  /** The row's table, LEFT JOINed: `calls c ON c.org_id = $2 AND c.call_id = $3`; $1 is the key's id, $2 the firm's. */
  join: string;
  /** The values of $3 onwards. */
  params: readonly unknown[];
  /** A member never null in a row that exists (its key): null there means the firm has no such row. */
  present: keyof R & string;
}

/** The standing (null: the key is gone or not the firm's) and the joined row (null: none). */
export interface WithStanding<R> {
  standing: KeyStandingRow | null;
  row: R | null;
}

/**
 * One statement, prepared (lookups by unique keys, whose plan does not depend on the values): the key's standing and
 * the firm's timezone, with the caller's row when the firm has it.
 */
export async function readWithKeyStanding<R extends object>(
  db: PreparingQueryable,
  caller: KeyCaller,
  read: StandingRead<R>,
): Promise<WithStanding<R>> {
  const statement = composed(read);
  const [row] = await db.prepared(read.name, statement.columns, statement.text, [caller.keyId, caller.orgId, ...read.params]);
  if (!row) return { standing: null, row: null };
  return { standing: row, row: row[read.present] === null ? null : row };
}

/** A page of rows joined to the standing (an events page, when a waiting request wakes). */
export interface StandingPageRead<R extends object> {
  /** The rows' columns, as the outer statement reads them from the page (`subqueryColumns(LIST, 'page')`). */
  columns: SelectList<R>;
  /**
   * The page, LEFT JOINed: `LATERAL (SELECT ... ORDER BY ... LIMIT $n) page ON true`, so it keeps its own order and
   * limit; $1 is the key's id, $2 the firm's.
   */
  join: string;
  /** The values of $3 onwards. */
  params: readonly unknown[];
  /** A member never null in a row of the page: null there is the one row of an empty page. */
  present: keyof R & string;
  /** The page's order again, outside (a join keeps none): `page.seq`. */
  order: string;
}

/** The standing (null: the key is gone or not the firm's) and the page's rows (none when it is). */
export interface PageWithStanding<R> {
  standing: KeyStandingRow | null;
  rows: R[];
}

/**
 * One statement, not prepared (a page's plan depends on its values): the key's standing and the firm's timezone,
 * with the page the caller reads, in one snapshot; so no row committed after the key stopped can be read with a key
 * judged good.
 */
export async function readPageWithKeyStanding<R extends object>(
  db: Queryable,
  caller: KeyCaller,
  read: StandingPageRead<R>,
): Promise<PageWithStanding<R>> {
  const columns = STANDING.and(read.columns);
  const text = `${standingStatement(columns, read.join)} ORDER BY ${read.order}`;
  const rows = await db.query(columns, text, [caller.keyId, caller.orgId, ...read.params]);
  if (rows.length === 0) return { standing: null, rows: [] };
  return { standing: rows[0], rows: rows.filter((row) => row[read.present] !== null) };
}

/** Each read's statement, composed once: a prepared statement's name always goes with the same text. */
const statements = new Map<string, { columns: SelectList<object>; text: string }>();

function composed<R extends object>(read: StandingRead<R>): { columns: SelectList<KeyStandingRow & R>; text: string } {
  let statement = statements.get(read.name);
  if (!statement) {
    const columns = STANDING.and(read.columns);
    statement = { columns, text: standingStatement(columns, read.join) };
    statements.set(read.name, statement);
  }
  return statement as { columns: SelectList<KeyStandingRow & R>; text: string };
}
