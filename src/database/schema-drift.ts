import type { DataSource } from 'typeorm';
import { catalogueDrift } from './schema-catalogue.js';
import { BEYOND_ENTITIES, type BeyondEntities } from './schema-beyond-entities.js';

/** Every way the entities and the migrated schema disagree, each named; none when they agree. */
export interface SchemaDrift {
  /** What TypeORM's schema builder would run to make the database match the entities (as `migration:generate`). */
  typeorm: string[];
  /** What the catalogue pass finds beyond that (schema-catalogue.ts). */
  catalogue: string[];
}

/**
 * The entities against the migrated schema, compared by TypeORM itself (its schema builder's pending queries,
 * `driver.createSchemaBuilder().log()`: columns' type, length, nullability, default, primary key and uniqueness;
 * indexes by name, columns, uniqueness and method; foreign keys by name, table and ON DELETE; unique and check
 * constraints by name), then by the catalogue pass for what TypeORM's diff leaves out. TypeORM's statements about
 * what no entity can describe (BEYOND_ENTITIES' columns: it would drop `events.txid`) are left to the catalogue
 * pass, which compares them with the list. Indexes an entity names with `synchronize: false` TypeORM's diff skips by
 * itself; the catalogue pass checks each exists.
 */
export async function schemaDrift(dataSource: DataSource, beyond: BeyondEntities = BEYOND_ENTITIES): Promise<SchemaDrift> {
  const pending = await dataSource.driver.createSchemaBuilder().log();
  const undescribable = Object.keys(beyond.columns).map((c) => {
    const [table, column] = c.split('.');
    return `ALTER TABLE "${table}" DROP COLUMN "${column}"`;
  });
  return {
    typeorm: pending.upQueries.map((q) => q.query.trim()).filter((q) => !undescribable.includes(q)),
    catalogue: await catalogueDrift(dataSource, beyond),
  };
}

/** The report `npm run migration:check` prints: one line per difference. */
export function describeDrift(drift: SchemaDrift): string[] {
  return [...drift.typeorm.map((q) => `TypeORM would run: ${q}`), ...drift.catalogue.map((d) => `catalogue: ${d}`)];
}
