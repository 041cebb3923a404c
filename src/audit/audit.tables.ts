import { defineTable } from '../database/tables.js';

/** A row of `audit_log`, as node-postgres returns it. */
export interface AuditLogRow {
  id: string;
  org_id: string;
  at: Date;
  actor_type: string;
  actor_id: string | null;
  action: string;
  resource_type: string;
  resource_ids: string[];
  details: Record<string, unknown> | null;
}

export const AUDIT_LOG_TABLE = defineTable<AuditLogRow>('audit_log', {
  id: 'bigint',
  org_id: 'uuid',
  at: 'timestamp with time zone',
  actor_type: 'text',
  actor_id: 'text null',
  action: 'text',
  resource_type: 'text',
  resource_ids: 'text[]',
  details: 'jsonb null',
});
