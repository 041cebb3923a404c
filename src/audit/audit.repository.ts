import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { PoolSql } from '../database/pool-sql.js';
import { AuditEntryEntity } from './entities/audit-entry.entity.js';

/** One audit row of a read made with an API key. */
export interface ReadAuditRow {
  org_id: string;
  key_id: string;
  action: string;
  resource_type: string;
  resource_ids: string[];
  details: Record<string, unknown> | null;
}

export type NewAuditEntry = Pick<
  AuditEntryEntity,
  'orgId' | 'actorType' | 'actorId' | 'action' | 'resourceType' | 'resourceIds' | 'details'
>;

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
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: PoolSql,
  ) {}

  /** Plain SQL: changes record an entry in their own transaction, often. */
  async insert(entry: NewAuditEntry, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(
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
    await this.sql.prepared('audit_read_rows', INSERT_READ_ROWS, [JSON.stringify(rows)]);
  }

  /** Newest first. */
  listForOrg(orgId: string, action: string | undefined, limit: number): Promise<AuditEntryEntity[]> {
    return this.dataSource.getRepository(AuditEntryEntity).find({
      where: { orgId, ...(action ? { action } : {}) },
      order: { id: 'DESC' },
      take: limit,
    });
  }
}
