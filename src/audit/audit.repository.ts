import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { Database, type Queryable, type Tx } from '../database/sql.js';
import { AuditLogEntity } from './entities/audit-log.entity.js';

/** One audit row of a read made with an API key, as the group-committed insert takes it (a JSON record). */
export interface ReadAuditRow {
  org_id: string;
  key_id: string;
  action: string;
  resource_type: string;
  resource_ids: string[];
  details: Record<string, unknown> | null;
}

export type NewAuditEntry = Pick<AuditLogEntity, 'orgId' | 'actorType' | 'actorId' | 'action' | 'resourceType' | 'resourceIds' | 'details'>;

/** Column names of the INSERTs' target lists. */
const col = columns(AuditLogEntity);

export type AuditEntryRow = Pick<AuditLogEntity, 'at' | 'actorType' | 'actorId' | 'action' | 'resourceType' | 'resourceIds' | 'details'>;

/**
 * Each statement's own implicit transaction commits without waiting for the
 * WAL flush (set_config local to that statement), so a GET does not wait on
 * the disk: lost only if PostgreSQL itself crashes within its WAL writer
 * delay. Rows go in array order.
 */
const INSERT_READ_ROWS = `
  WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
  INSERT INTO audit_log (${col.orgId}, ${col.actorType}, ${col.actorId}, ${col.action}, ${col.resourceType}, ${col.resourceIds}, ${col.details})
  SELECT r.org_id, 'api_key', r.key_id, r.action, r.resource_type, r.resource_ids, r.details
    FROM relaxed, jsonb_to_recordset($1::jsonb) AS r(org_id uuid, key_id text, action text, resource_type text, resource_ids text[], details jsonb)`;

const ENTRY: NewAuditEntry = {
  orgId: DummyValue.UUID,
  actorType: 'owner',
  actorId: null,
  action: 'api_key.created',
  resourceType: 'api_key',
  resourceIds: [DummyValue.UUID],
  details: null,
};

/**
 * The `audit_log` table: entries written out (a change's, in its transaction; the reads', group-committed), the
 * owner's listing through TypeORM's repository.
 */
@Injectable()
export class AuditRepository {
  constructor(
    @InjectRepository(AuditLogEntity) private readonly entries: Repository<AuditLogEntity>,
    private readonly db: Database,
  ) {}

  /** In the transaction of the change the entry records. */
  @GenerateSql({ params: [ENTRY, SQL] })
  insert(entry: NewAuditEntry, tx: Tx): Promise<void> {
    return this.write(tx, entry);
  }

  /** An entry that is a change of its own, on the pool. */
  insertStandalone(entry: NewAuditEntry): Promise<void> {
    return this.write(this.db, entry);
  }

  /** One entry: a plain INSERT (an entry's details are any JSON its writer gives). */
  private async write(db: Queryable, entry: NewAuditEntry): Promise<void> {
    await db.execute(
      `INSERT INTO audit_log (${col.orgId}, ${col.actorType}, ${col.actorId}, ${col.action}, ${col.resourceType}, ${col.resourceIds}, ${col.details})
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
  @GenerateSql({ params: [[{ org_id: DummyValue.UUID, key_id: DummyValue.UUID, action: 'call.read' }]] })
  async insertReadRows(rows: ReadAuditRow[]): Promise<void> {
    await this.db.executePrepared('audit_read_rows', INSERT_READ_ROWS, [JSON.stringify(rows)]);
  }

  /** Newest first. */
  listForOrg(orgId: string, action: string | undefined, limit: number): Promise<AuditEntryRow[]> {
    return this.entries.find({
      select: { at: true, actorType: true, actorId: true, action: true, resourceType: true, resourceIds: true, details: true },
      where: action ? { orgId, action } : { orgId },
      order: { id: 'DESC' },
      take: limit,
    });
  }
}
