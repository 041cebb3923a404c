/**
 * Row types kept in step with the migrations. Each table has one row
 * interface (beside its repository, in its context's `*.tables.ts`) and one
 * column list typed against it with `defineTable`: the compiler holds the
 * list to the interface (every member, its PostgreSQL type and nullability),
 * and test/schema-rows.e2e.spec.ts loads every `src/*\/*.tables.ts` and holds
 * the lists to `information_schema.columns` of the migrated database, so a
 * migration that adds, drops, renames or retypes a column (or adds a table)
 * fails until the row type follows.
 */

/** The PostgreSQL types the schema uses, as information_schema names them (arrays as `text[]`). */
export type PgType =
  | 'uuid'
  | 'text'
  | 'integer'
  | 'double precision'
  | 'bigint'
  | 'boolean'
  | 'timestamp with time zone'
  | 'jsonb'
  | 'json'
  | 'bytea'
  | 'xid8'
  | 'text[]';

/** What node-postgres hands back for each type (bigint and xid8 as strings: they can exceed 2^53). */
interface PgValue {
  uuid: string;
  text: string;
  integer: number;
  'double precision': number;
  bigint: string;
  boolean: boolean;
  'timestamp with time zone': Date;
  jsonb: unknown;
  json: unknown;
  bytea: Buffer;
  xid8: string;
  'text[]': string[];
}

/** The types a row member of type V may be stored as (jsonb and json hold any shape). */
type TypesFor<V> = {
  [T in PgType]: T extends 'jsonb' | 'json' ? T : [V] extends [PgValue[T]] ? T : never;
}[PgType];

/** A column of a member: its type, and ` null` exactly when the member admits null. */
export type ColumnOf<V> = unknown extends V
  ? 'jsonb' | 'json' | 'jsonb null' | 'json null'
  : null extends V
    ? `${TypesFor<Exclude<V, null>>} null`
    : TypesFor<V>;

/** Every member of Row, each with a column declaration that fits its TypeScript type. */
export type ColumnsOf<Row> = { [K in keyof Row & string]-?: ColumnOf<Row[K]> };

export interface TableDeclaration {
  name: string;
  columns: Readonly<Record<string, string>>;
}

/** Declares a table's columns against its row type (exported from a `*.tables.ts`, where the schema test finds it). */
export function defineTable<Row>(name: string, columns: ColumnsOf<Row>): TableDeclaration {
  return { name, columns: columns as Readonly<Record<string, string>> };
}

export function isTableDeclaration(value: unknown): value is TableDeclaration {
  const v = value as Partial<TableDeclaration> | null;
  return typeof v === 'object' && v !== null && typeof v.name === 'string' && typeof v.columns === 'object';
}

/** `snake_case` to `camelCase`, as a type: `previous_secret_enc` is `previousSecretEnc`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/**
 * A row with its members named in camelCase: the shape a query returns when it
 * aliases each column (`org_id AS "orgId"`), derived from the row type so the two cannot drift.
 */
export type Camelized<Row> = { [K in keyof Row & string as CamelCase<K>]: Row[K] };
