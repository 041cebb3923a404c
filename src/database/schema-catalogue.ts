import { type DataSource, type QueryRunner, Table, TableForeignKey } from 'typeorm';
import { BEYOND_ENTITIES, type BeyondEntities } from './schema-beyond-entities.js';

/** One schema's tables as PostgreSQL prints them: `key` (what it is) → definition. */
type Catalogue = Map<string, string>;

const SCRATCH = 'entities_scratch';
/** TypeORM's own bookkeeping, no table of the service. */
const NOT_OURS = ['migrations'];

/** Names printed without their schema, so the entities' scratch copy and the migrated tables compare. */
const unqualified = (text: string) => text.replace(new RegExp(`\\b(public|${SCRATCH})\\.`, 'g'), '');

/**
 * The catalogue pass: what TypeORM's own diff does not compare (an index's column order and predicate, a foreign
 * key's columns, a check's expression, a constraint's name), what no entity can say (BEYOND_ENTITIES) and whether
 * each index an entity names but leaves to the migrations (`synchronize: false`) exists. The
 * entities' tables are created as TypeORM would create them (its own DDL, from the same metadata) in a scratch
 * schema inside a transaction that is rolled back, and PostgreSQL prints both sides: every column, constraint and
 * index, and each table's kind. Returns each difference, named.
 */
export async function catalogueDrift(dataSource: DataSource, beyond: BeyondEntities = BEYOND_ENTITIES): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    const tables = dataSource.entityMetadatas.map((m) => m.tableName);
    const migrated = await readCatalogue(runner, 'public', await ourTables(runner));
    await createAsTypeormWould(runner, dataSource);
    const described = withBeyond(await readCatalogue(runner, SCRATCH, tables), beyond);
    const migratedNormalised = normaliseMigrated(migrated, beyond);
    return compare(withNamedOnly(described, namedOnlyIndexes(dataSource), migratedNormalised), migratedNormalised);
  } finally {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    await runner.release();
  }
}

/** Every table of the service the migrations made (a partition is a piece of its table, not one of them). */
async function ourTables(runner: QueryRunner): Promise<string[]> {
  const rows: { name: string }[] = await runner.query(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> ALL($1)`,
    [NOT_OURS],
  );
  return rows.map((r) => r.name);
}

/** The entities' tables, keys, checks, indexes and then foreign keys, by TypeORM's DDL, in the scratch schema. */
async function createAsTypeormWould(runner: QueryRunner, dataSource: DataSource): Promise<void> {
  await runner.query(`CREATE SCHEMA ${SCRATCH}`);
  // public after the scratch schema: a default may call the migrations' functions (events.history: log_history()).
  await runner.query(`SET LOCAL search_path TO ${SCRATCH}, public`);
  runner.enableSqlMemory();
  let ddl: ReturnType<QueryRunner['getMemorySql']>;
  try {
    const tables = dataSource.entityMetadatas.map((m) => ({ m, table: Table.create(m, dataSource.driver) }));
    for (const { table } of tables) await runner.createTable(table, false, false, true);
    for (const { m, table } of tables) {
      await runner.createForeignKeys(
        table,
        m.foreignKeys.map((fk) => TableForeignKey.create(fk, dataSource.driver)),
      );
    }
    ddl = runner.getMemorySql();
  } finally {
    runner.disableSqlMemory();
  }
  for (const q of ddl.upQueries) await runner.query(q.query, q.parameters);
}

async function readCatalogue(runner: QueryRunner, schema: string, tables: string[]): Promise<Catalogue> {
  const catalogue: Catalogue = new Map();
  const put = (rows: { key: string; def: string | null }[]) => rows.forEach((r) => catalogue.set(r.key, unqualified(r.def ?? '')));
  put(
    await runner.query(
      `SELECT c.relname AS key,
              CASE c.relkind WHEN 'p' THEN 'partitioned by ' || pg_get_partkeydef(c.oid) ELSE 'table' END
              || CASE c.relpersistence WHEN 'u' THEN ', unlogged' ELSE '' END AS def
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = ANY($2)`,
      [schema, tables],
    ),
  );
  put(
    await runner.query(
      `SELECT c.relname || '.' || a.attname AS key,
              format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
              || coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '') AS def
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE n.nspname = $1 AND c.relname = ANY($2) AND a.attnum > 0 AND NOT a.attisdropped`,
      [schema, tables],
    ),
  );
  put(
    await runner.query(
      `SELECT c.relname || ' constraint ' || k.conname AS key, pg_get_constraintdef(k.oid) AS def
         FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = ANY($2)`,
      [schema, tables],
    ),
  );
  put(
    await runner.query(
      `SELECT c.relname || ' index ' || i.relname AS key, pg_get_indexdef(x.indexrelid) AS def
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = ANY($2)
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid)`,
      [schema, tables],
    ),
  );
  return catalogue;
}

const tableOfIndex = (def: string) => /\bON (?:ONLY )?(\w+)/.exec(def)?.[1] ?? '';

/** The entities' side of an index they name but leave to the migrations, when the migrated schema has none. */
const NAMED_ONLY = 'named by the entity, synchronize: false';

/**
 * The catalogue keys (`table index name`) of the indexes the entities name but TypeORM cannot describe,
 * `@Index(name, { synchronize: false })`: a column sorted DESC, a column no entity has. Read from the entities'
 * metadata, so naming one is declaring it.
 */
function namedOnlyIndexes(dataSource: DataSource): string[] {
  return dataSource.entityMetadatas.flatMap((m) => m.indices.filter((i) => !i.synchronize).map((i) => `${m.tableName} index ${i.name}`));
}

/**
 * The entities' side with the indexes they name only: each is the migrated definition when the migrations made an
 * index of that name on that table (the migrations alone define it), and a difference when they made none. An index
 * the migrations made that no entity names stays a difference too ("in no entity").
 */
function withNamedOnly(described: Catalogue, namedOnly: string[], migrated: Catalogue): Catalogue {
  const result = new Map(described);
  for (const key of namedOnly) result.set(key, migrated.get(key) ?? NAMED_ONLY);
  return result;
}

/**
 * The entities' side with what no entity can say: listed columns join; listed tables are partitioned or unlogged.
 */
function withBeyond(described: Catalogue, beyond: BeyondEntities): Catalogue {
  const result = new Map(described);
  for (const [column, def] of Object.entries(beyond.columns)) result.set(column, def);
  for (const [table, by] of Object.entries(beyond.partitioned)) result.set(table, `partitioned by ${by}`);
  for (const table of beyond.unlogged) result.set(table, `${result.get(table) ?? 'table'}, unlogged`);
  return result;
}

/** An index of a partitioned table is printed `ON ONLY` (its partitions have their own): the same index. */
function normaliseMigrated(migrated: Catalogue, beyond: BeyondEntities): Catalogue {
  const partitioned = new Set(Object.keys(beyond.partitioned));
  const result = new Map<string, string>();
  for (const [key, def] of migrated) {
    const onOnly = / index /.test(key) && partitioned.has(tableOfIndex(def));
    result.set(key, onOnly ? def.replace(' ON ONLY ', ' ON ') : def);
  }
  return result;
}

function compare(described: Catalogue, migrated: Catalogue): string[] {
  const differences: string[] = [];
  for (const key of [...new Set([...described.keys(), ...migrated.keys()])].sort()) {
    const e = described.get(key);
    const m = migrated.get(key);
    if (e === m) continue;
    if (e === undefined) differences.push(`${key}: in the migrated schema (${m}), in no entity`);
    else if (m === undefined) differences.push(`${key}: in the entities (${e}), not in the migrated schema`);
    else differences.push(`${key}: the entities say ${e}; the migrated schema ${m}`);
  }
  return differences;
}
