import { getMetadataArgsStorage } from 'typeorm';
import { NAMING_STRATEGY } from './naming-strategy.js';

/** The properties of an entity that hold a column (not its methods). */
export type ColumnOf<E> = { [K in keyof E & string]: E[K] extends (...args: never[]) => unknown ? never : K }[keyof E & string];

/**
 * The select list of a hand-written statement, and the type of the rows it gives. Made from an entity's own metadata
 * (`selectList`), so each column is aliased to its property (`c.call_id AS "callId"`) and the row type is the
 * entity's `Pick` of exactly those properties: a column left out of the list is a member the rows lack, and a
 * renamed property is a name the list no longer accepts, both compile errors where the rows are used. `computed` adds
 * what no entity column holds (an aggregate, a cast, a column of another context's table), typed by its caller.
 * Interpolated into SQL (`${LIST}`), a list is its text.
 */
export class SelectList<R extends object> {
  /** Never set: the type of the rows, for `RowOf<typeof LIST>`. */
  declare readonly rows: R;

  private constructor(readonly sql: string) {}

  /** @internal `selectList` and `computed` make lists. */
  static of<R extends object>(sql: string): SelectList<R> {
    return new SelectList<R>(sql);
  }

  /** This list followed by another's columns (a join's rows, or an entity's columns with computed ones). */
  and<S extends object>(other: SelectList<S>): SelectList<R & S> {
    return new SelectList<R & S>(`${this.sql}, ${other.sql}`);
  }

  toString(): string {
    return this.sql;
  }
}

/** The rows of a select list: `RowOf<typeof LIST>`. */
export type RowOf<L> = L extends SelectList<infer R> ? R : never;

const plain = /^[a-z_][a-z0-9_]*$/;

/**
 * A column's database name, from the entity's metadata as every DataSource reads it: the name its decorator gives,
 * or its property in snake_case (the naming strategy, naming-strategy.ts).
 */
export function columnName<E extends object>(entity: abstract new () => E, property: ColumnOf<E>): string {
  const column = getMetadataArgsStorage()
    .filterColumns(entity)
    .find((c) => c.propertyName === property);
  if (!column) throw new Error(`${entity.name}.${property} is not a column`);
  return NAMING_STRATEGY.columnName(property, column.options.name, []);
}

/** Members named with a prefix: `Prefixed<{ revokedAt: Date }, 'key'>` is `{ keyRevokedAt: Date }`. */
export type Prefixed<T, P extends string> = P extends '' ? T : { [K in keyof T & string as `${P}${Capitalize<K>}`]: T[K] };

/**
 * `properties` of `entity`'s table under `alias` (or unqualified, for a RETURNING list without one), each column as
 * its property: `selectList(CallEntity, 'c', ['callId', 'startedAt'])` is `c.call_id AS "callId", c.started_at AS
 * "startedAt"`, of rows `Pick<CallEntity, 'callId' | 'startedAt'>`. With `prefix`, the members are named apart from
 * those of the statement's other columns: `prefix` 'key' makes `revokedAt` `keyRevokedAt`.
 */
export function selectList<E extends object, const K extends readonly ColumnOf<E>[], P extends string = ''>(
  entity: abstract new () => E,
  alias: string | null,
  properties: K,
  prefix?: P,
): SelectList<Prefixed<Pick<E, K[number]>, P>> {
  const qualify = alias === null ? '' : `${alias}.`;
  const columns = properties.map((property) => {
    const name = columnName(entity, property);
    const member = prefix ? `${prefix}${property[0].toUpperCase()}${property.slice(1)}` : property;
    return name === member && plain.test(member) ? `${qualify}${name}` : `${qualify}${name} AS "${member}"`;
  });
  return SelectList.of(columns.join(', '));
}

/**
 * Expressions no entity column holds, each aliased to the member its caller names in `R`:
 * `computed<{ createdKey: string }>('d.created_at::text AS "createdKey"')`.
 */
export function computed<R extends object>(sql: string): SelectList<R> {
  return SelectList.of<R>(sql);
}

/**
 * The columns of a subquery selected with `list`, as a statement around it reads them under `alias` (`page.*`): its
 * rows are the subquery's, typed by the same list (a LATERAL page joined to another row, say).
 */
export function subqueryColumns<R extends object>(_list: SelectList<R>, alias: string): SelectList<R> {
  return SelectList.of<R>(`${alias}.*`);
}
