/**
 * Bulk-load indexing for bench/growth.bench.mjs: the big tables' secondary indexes are dropped before the seeding and
 * built again after it from their own definitions (pg_get_indexdef), so the database measured has exactly the indexes
 * the migrations made, but each is built once from sorted input instead of being updated row by row.
 *
 * Indexes that back a constraint (primary keys, UNIQUE) stay: other constraints may depend on them, and they keep the
 * seeding honest (a duplicate id fails the load). On a partitioned table the parent's index is dropped and built
 * again, which drops and builds every partition's.
 */
export const BULK_TABLES = ['calls', 'leads', 'call_references', 'events', 'webhook_deliveries', 'mail_outbox', 'audit_log'];

/** Drops the secondary indexes of `tables`; resolves to their definitions, for `buildIndexes`. */
export async function dropSecondaryIndexes(client, tables = BULK_TABLES) {
  const { rows } = await client.query(
    `SELECT c.relname AS "table", i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
      WHERE c.relname = ANY($1) AND c.relnamespace = 'public'::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
      ORDER BY c.relname, i.indexrelid`,
    [tables],
  );
  for (const r of rows) await client.query(`DROP INDEX ${r.name}`);
  return rows;
}

/**
 * Builds the dropped indexes again, one after another; resolves to seconds per table. A partitioned table's index is
 * defined `ON ONLY` the parent (pg_get_indexdef's form, which builds nothing on the partitions): it is built without
 * ONLY, so every partition gets its index, as the migration's CREATE INDEX did. Throws unless every index of the
 * tables is then valid and each partition has as many indexes as its parent.
 */
export async function buildIndexes(client, indexes) {
  const seconds = {};
  for (const { table, definition } of indexes) {
    const t0 = Date.now();
    await client.query(definition.replace(/ ON ONLY /, ' ON '));
    seconds[table] = (seconds[table] ?? 0) + (Date.now() - t0) / 1000;
  }
  const { rows } = await client.query(
    `SELECT c.relname, (SELECT count(*) FROM pg_index i WHERE i.indrelid = c.oid)::int AS indexes,
            (SELECT count(*) FROM pg_index i WHERE i.indrelid = c.oid AND NOT i.indisvalid)::int AS invalid,
            (SELECT count(*) FROM pg_index i WHERE i.indrelid = coalesce(p.inhparent, c.oid))::int AS parent_indexes
       FROM pg_class c LEFT JOIN pg_inherits p ON p.inhrelid = c.oid
      WHERE c.relkind IN ('r', 'p') AND (c.relname = ANY($1) OR p.inhparent = ANY($1::regclass[]))`,
    [[...new Set(indexes.map((i) => i.table))]],
  );
  const wrong = rows.filter((r) => r.invalid > 0 || r.indexes !== r.parent_indexes);
  if (wrong.length) throw new Error(`indexes not rebuilt whole: ${JSON.stringify(wrong)}`);
  return seconds;
}
