import { firmTimezoneJoin } from '../account/index.js';
import { columns } from '../database/columns.js';
import { selectList, type RowOf, type SelectList } from '../database/select-list.js';
import { SqlParams } from '../database/sql-params.js';
import type { PreparingQueryable, Queryable } from '../database/sql.js';
import { ApiKeyEntity } from './entities/api-key.entity.js';

const key = columns(ApiKeyEntity, 'standing_key');
/** The key's firm (the account context's table, joined through its port): its timezone. */
const FIRM = firmTimezoneJoin('standing_firm', key.orgId);

/**
 * The calling key's standing, read inside the statement that reads the data, so a principal cached by the process is
 * re-checked on every request, in the same snapshot as the data: the key's revocation and expiry, and the firm's
 * timezone, which every answer carries. Another context reads it through `readWithKeyStanding` (auth's index.ts),
 * giving its own select list and join; the SQL of the standing stays here. KeyStanding (key-standing.service.ts)
 * judges it.
 */
export const STANDING = selectList(ApiKeyEntity, 'standing_key', ['revokedAt', 'expiresAt'], 'key').and(FIRM.columns);
export type KeyStandingRow = RowOf<typeof STANDING>;

/**
 * A table another context joins to the standing, given the statement's `params` to add its values to and `firm`, the
 * placeholder of the caller's firm id (calls: ``(params, firm) => `calls c ON ${c.orgId} = ${firm} AND ${c.callId} =
 * ${params.add(callId)}` ``). No placeholder is written by number, so neither side depends on the other's.
 */
export type StandingJoin = (params: SqlParams, firm: string) => string;

/**
 * A statement reading `columns` (the standing's first) from the key and its firm, with `join` LEFT JOINed when given:
 * that key, of that firm (a key moved to another firm finds no row). The key's and firm's ids are the first values
 * of `params`; `columns` (given `params`: an as_of margin, say) and `join` add theirs after.
 */
export function standingStatement<R extends object>(
  params: SqlParams,
  caller: KeyCaller,
  columns: (params: SqlParams) => SelectList<R>,
  join: StandingJoin | null,
): { columns: SelectList<R>; text: string } {
  const keyId = params.add(caller.keyId);
  const firm = params.add(caller.orgId);
  const list = columns(params);
  const joined = join === null ? '' : ` LEFT JOIN ${join(params, firm)}`;
  const text = `SELECT ${list} FROM api_keys standing_key JOIN ${FIRM.join}${joined} WHERE ${key.id} = ${keyId} AND ${key.orgId} = ${firm}`;
  return { columns: list, text };
}

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
  /** The row's table, LEFT JOINed, with the values it compares. */
  join: StandingJoin;
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
  const params = new SqlParams();
  const statement = standingStatement(params, caller, () => STANDING.and(read.columns), read.join);
  const [row] = await db.prepared(read.name, statement.columns, statement.text, params.values);
  if (!row) return { standing: null, row: null };
  return { standing: row, row: row[read.present] === null ? null : row };
}

/** A page of rows joined to the standing (an events page, when a waiting request wakes). */
export interface StandingPageRead<R extends object> {
  /** The rows' columns, as the outer statement reads them from the page (`subqueryColumns(LIST, 'page')`). */
  columns: SelectList<R>;
  /**
   * The page, LEFT JOINed, with its values: `LATERAL (SELECT ... ORDER BY ... LIMIT ...) page ON true`, so it keeps
   * its own order and limit.
   */
  join: StandingJoin;
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
  const params = new SqlParams();
  const statement = standingStatement(params, caller, () => STANDING.and(read.columns), read.join);
  const rows = await db.query(statement.columns, `${statement.text} ORDER BY ${read.order}`, params.values);
  if (rows.length === 0) return { standing: null, rows: [] };
  return { standing: rows[0], rows: rows.filter((row) => row[read.present] !== null) };
}
