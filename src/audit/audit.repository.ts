import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { Queryable, Tx } from '../database/sql.js';
import type { AuditLogRow } from './audit.tables.js';

/** One audit row of a read made with an API key. */
export interface ReadAuditRow {
  org_id: string;
  key_id: string;
  action: string;
  resource_type: string;
  resource_ids: string[];
  details: Record<string, unknown> | null;
}

export interface NewAuditEntry {
  orgId: string;
  actorType: string;
  actorId: string | null;
  action: string;
  resourceType: string;
  resourceIds: string[];
  details: Record<string, unknown> | null;
}

export type AuditEntryRow = Pick<AuditLogRow, 'at' | 'actor_type' | 'actor_id' | 'action' | 'resource_type' | 'resource_ids' | 'details'>;

/**
 * Each statement's own implicit transaction commits without waiting for the
 * WAL flush (set_config local to that statement), so a GET does not wait on
 * the disk: lost only if PostgreSQL itself crashes within its WAL writer
 * delay. Rows go in array order.
 */
const INSERT_READ_ROWS = `
  WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
  INSERT INTO audit_log (org_id, actor_type, actor_id, action, resource_type, resource_ids, details)
  SELECT r.org_id, 'api_key', r.key_id, r.action, r.resource_type, r.resource_ids, r.details
    FROM relaxed, jsonb_to_recordset($1::jsonb) AS r(org_id uuid, key_id text, action text, resource_type text, resource_ids text[], details jsonb)`;

/** The `audit_log` table. */
@Injectable()
export class AuditRepository {
  constructor(private readonly sql: PoolSql) {}

  /** In the transaction of the change the entry records. */
  insert(entry: NewAuditEntry, tx: Tx): Promise<void> {
    return this.write(tx, entry);
  }

  /** An entry that is a change of its own, on the pool. */
  insertStandalone(entry: NewAuditEntry): Promise<void> {
    return this.write(this.sql, entry);
  }

  private async write(sql: Queryable, entry: NewAuditEntry): Promise<void> {
    await sql.execute(
      `INSERT INTO audit_log (org_id, actor_type, actor_id, action, resource_type, resource_ids, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        entry.orgId,
        entry.actorType,
        entry.actorId,
        entry.action,
        entry.resourceType,
        entry.resourceIds,
        entry.details ? JSON.stringify(entry.details) : null,
      ],
    );
  }

  /** Several reads' rows in one relaxed-commit statement (a named prepared statement: it runs on every read). */
  async insertReadRows(rows: ReadAuditRow[]): Promise<void> {
    await this.sql.executePrepared('audit_read_rows', INSERT_READ_ROWS, [JSON.stringify(rows)]);
  }

  /** Newest first. */
  listForOrg(orgId: string, action: string | undefined, limit: number): Promise<AuditEntryRow[]> {
    return this.sql.query<AuditEntryRow>(
      `SELECT at, actor_type, actor_id, action, resource_type, resource_ids, details FROM audit_log
        WHERE org_id = $1 AND ($2::text IS NULL OR action = $2) ORDER BY id DESC LIMIT $3`,
      [orgId, action || null, limit],
    );
  }
}
