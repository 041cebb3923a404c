/**
 * What the migrations say about the entities' tables that an entity cannot: TypeORM has no `xid8` type and no
 * partitioned or UNLOGGED table. The catalogue pass (schema-catalogue.ts) holds the migrated schema to the entities
 * with these added, so each fact is compared too: a migration that changes one is a difference until this list
 * follows (docs/decisions.md, "Entities and migrations"). Definitions are PostgreSQL's own (`format_type`). An index
 * TypeORM cannot describe (a column sorted DESC, a column no entity has) is not listed here: its entity names it,
 * `@Index(name, { synchronize: false })`, and the migrations alone define it.
 */
export interface BeyondEntities {
  /** `table.column`: type, nullability and default of a column TypeORM has no type for. */
  columns: Record<string, string>;
  /** Tables partitioned by day on a time column (their partitions are pieces of them, not tables of the service). */
  partitioned: Record<string, string>;
  /** UNLOGGED tables: their rows do not survive a crash. */
  unlogged: string[];
}

export const BEYOND_ENTITIES: BeyondEntities = {
  columns: {
    'events.txid': 'xid8 NOT NULL DEFAULT pg_current_xact_id()',
  },
  partitioned: {
    events: 'RANGE (occurred_at)',
    webhook_deliveries: 'RANGE (created_at)',
    audit_log: 'RANGE (at)',
    mail_outbox: 'RANGE (created_at)',
  },
  unlogged: ['rate_limit_buckets'],
};
