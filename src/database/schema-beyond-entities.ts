/**
 * What the migrations say about the entities' tables that an entity cannot: TypeORM has no column sort order in an
 * index, no `xid8` type, no partitioned or UNLOGGED table. The catalogue pass (schema-catalogue.ts) holds the
 * migrated schema to the entities with these added, so each fact is compared too: a migration that changes one, or
 * an entity whose index no longer fits its fact, is a difference until this list follows (docs/decisions.md,
 * "Entities and migrations"). Definitions are PostgreSQL's own (`pg_get_indexdef`, `format_type`), schema left out.
 */
export interface BeyondEntities {
  /** Whole index definitions: a column sorted DESC, or an index on a column no entity has. */
  indexes: Record<string, string>;
  /** `table.column`: type, nullability and default of a column TypeORM has no type for. */
  columns: Record<string, string>;
  /** Tables partitioned by day on a time column (their partitions are pieces of them, not tables of the service). */
  partitioned: Record<string, string>;
  /** UNLOGGED tables: their rows do not survive a crash. */
  unlogged: string[];
}

export const BEYOND_ENTITIES: BeyondEntities = {
  indexes: {
    api_keys_org_idx: 'CREATE INDEX api_keys_org_idx ON api_keys USING btree (org_id, created_at DESC)',
    audit_log_org_at_idx: 'CREATE INDEX audit_log_org_at_idx ON audit_log USING btree (org_id, at DESC)',
    calls_org_started_idx: 'CREATE INDEX calls_org_started_idx ON calls USING btree (org_id, livemode, started_at DESC, call_id DESC)',
    calls_org_from_idx:
      'CREATE INDEX calls_org_from_idx ON calls USING btree (org_id, livemode, from_e164, started_at DESC, call_id DESC) WHERE (from_e164 IS NOT NULL)',
    leads_org_captured_idx: 'CREATE INDEX leads_org_captured_idx ON leads USING btree (org_id, livemode, captured_at DESC, lead_id DESC)',
    leads_org_status_idx:
      'CREATE INDEX leads_org_status_idx ON leads USING btree (org_id, livemode, status, captured_at DESC, lead_id DESC)',
    webhook_endpoints_org_idx: 'CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints USING btree (org_id, created_at DESC, id DESC)',
    webhook_deliveries_org_idx:
      'CREATE INDEX webhook_deliveries_org_idx ON webhook_deliveries USING btree (org_id, created_at DESC, id DESC)',
    webhook_deliveries_endpoint_idx:
      'CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries USING btree (endpoint_id, created_at DESC, id DESC)',
    webhook_deliveries_event_idx:
      'CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries USING btree (org_id, event_id, created_at DESC, id DESC)',
    events_org_position_idx: 'CREATE INDEX events_org_position_idx ON events USING btree (org_id, history, txid, seq)',
    events_org_type_position_idx: 'CREATE INDEX events_org_type_position_idx ON events USING btree (org_id, type, history, txid, seq)',
  },
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
