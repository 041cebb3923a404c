import { Injectable } from '@nestjs/common';
import type { Queryable, Tx } from '../database/sql.js';
import type { LeadFromCall, LeadStatus } from './lead-model.js';
import type { LeadRow, LeadsRow } from './leads.tables.js';
import { SqlParams } from '../database/sql-params.js';
import type { KeysetPosition } from '../common/pagination/keyset.js';

export interface LeadListFilters {
  status?: string;
  from?: string;
  to?: string;
  updatedSince?: string;
  callId?: string;
  phoneE164?: string;
  externalId?: string;
}

/** The firm-owned fields a PATCH writes. */
export interface LeadFirmFields {
  status: LeadStatus;
  external_id: string | null;
  status_reason: string | null;
}

const COLUMNS = `l.lead_id, l.call_id, l.status, l.status_updated_at, l.captured_at, l.updated_at, l.category, l.urgency, l.language,
  l.intake_completeness, l.phone, l.phone_extension, l.email, l.external_id, l.status_reason, l.untrusted_name, l.untrusted_incident_date, l.version, l.livemode`;

/** What the pipeline owns on a lead, in the column order of insert ($4...) and of updateFromCall ($3...). */
const pipelineValues = (l: LeadFromCall): unknown[] => [
  l.capturedAt,
  l.category,
  l.urgency,
  l.language,
  l.intakeCompleteness,
  l.phone,
  l.phoneE164,
  l.phoneExtension,
  l.email,
  l.untrustedName,
  l.untrustedIncidentDate,
  l.intake === null ? null : JSON.stringify(l.intake),
];

/** Every query carries the firm's id. Writers have run beginChange (updated_at = clock_timestamp(), see change-stamp.ts). */
@Injectable()
export class LeadsRepository {
  /** Keyset page, newest capture first, lead_id as tie-breaker (leads_org_captured_idx). */
  async listPage(
    manager: Queryable,
    orgId: string,
    livemode: boolean,
    f: LeadListFilters,
    after: KeysetPosition | null,
    limit: number,
  ): Promise<LeadRow[]> {
    const q = new SqlParams(orgId);
    const where = ['l.org_id = $1', `l.livemode = ${q.add(livemode)}`];
    if (f.status !== undefined) where.push(`l.status = ${q.add(f.status)}`);
    if (f.from !== undefined) where.push(`l.captured_at >= ${q.add(f.from)}::timestamptz`);
    if (f.to !== undefined) where.push(`l.captured_at < ${q.add(f.to)}::timestamptz`);
    if (f.updatedSince !== undefined) where.push(`l.updated_at >= ${q.add(f.updatedSince)}::timestamptz`);
    if (f.callId !== undefined) where.push(`l.call_id = ${q.add(f.callId)}`);
    if (f.phoneE164 !== undefined) where.push(`l.phone_e164 = ${q.add(f.phoneE164)}`);
    if (f.externalId !== undefined) where.push(`l.external_id = ${q.add(f.externalId)}`);
    if (after) where.push(`(l.captured_at, l.lead_id) < (${q.add(after.at)}::timestamptz, ${q.add(after.id)})`);
    return manager.query<LeadRow>(
      `SELECT ${COLUMNS} FROM leads l WHERE ${where.join(' AND ')} ORDER BY l.captured_at DESC, l.lead_id DESC LIMIT ${q.add(limit + 1)}`,
      q.values,
    );
  }

  /** The firm's lead in this mode (another mode's answers like a missing one). */
  async find(manager: Queryable, orgId: string, livemode: boolean, leadId: string, withIntake = false): Promise<LeadRow | null> {
    const rows = await manager.query<LeadRow>(
      `SELECT ${COLUMNS}${withIntake ? ', l.intake' : ''} FROM leads l WHERE l.org_id = $1 AND l.lead_id = $2 AND l.livemode = $3`,
      [orgId, leadId, livemode],
    );
    return rows[0] ?? null;
  }

  async findIdByCall(manager: Tx, orgId: string, callId: string): Promise<string | null> {
    const rows = await manager.query<Pick<LeadsRow, 'lead_id'>>('SELECT lead_id FROM leads WHERE org_id = $1 AND call_id = $2', [
      orgId,
      callId,
    ]);
    return rows[0]?.lead_id ?? null;
  }

  /** A new lead of a call, in the call's mode. */
  async insert(manager: Tx, orgId: string, leadId: string, l: LeadFromCall, livemode: boolean): Promise<LeadRow> {
    const rows = await manager.query<LeadRow>(
      `INSERT INTO leads (org_id, lead_id, call_id, status, status_updated_at, captured_at, created_at, updated_at, category, urgency, language,
                          intake_completeness, phone, phone_e164, phone_extension, email, untrusted_name, untrusted_incident_date, intake,
                          livemode)
       VALUES ($1, $2, $3, 'new', NULL, $4, clock_timestamp(), clock_timestamp(), $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       RETURNING ${COLUMNS.replace(/l\./g, '')}`,
      [orgId, leadId, l.callId, ...pipelineValues(l), livemode],
    );
    return rows[0];
  }

  /** Re-processing: the pipeline's fields are replaced; status, external_id, status_reason and version are kept. */
  async updateFromCall(manager: Tx, orgId: string, leadId: string, l: LeadFromCall): Promise<void> {
    await manager.execute(
      `UPDATE leads SET captured_at = $3, category = $4, urgency = $5, language = $6, intake_completeness = $7, phone = $8, phone_e164 = $9,
                        phone_extension = $10, email = $11, untrusted_name = $12, untrusted_incident_date = $13, intake = $14, updated_at = clock_timestamp()
        WHERE org_id = $1 AND lead_id = $2`,
      [orgId, leadId, ...pipelineValues(l)],
    );
  }

  /** The lead's call was re-processed without finding a lead: the lead stays, its updated_at moves. */
  async touchForCall(manager: Tx, orgId: string, callId: string): Promise<string | null> {
    const rows = await manager.query<Pick<LeadsRow, 'lead_id'>>(
      'UPDATE leads SET updated_at = clock_timestamp() WHERE org_id = $1 AND call_id = $2 RETURNING lead_id',
      [orgId, callId],
    );
    return rows[0]?.lead_id ?? null;
  }

  /**
   * Optimistic write of the firm's fields: only if nobody changed them since
   * `version` was read. Null when the version moved (the caller answers 409
   * or a no-op after re-reading). One stamp for both times: statement_timestamp(),
   * taken after beginChange gave the transaction its xid.
   */
  async updateFirmFields(
    manager: Tx,
    orgId: string,
    leadId: string,
    version: number,
    next: LeadFirmFields,
    statusChanged: boolean,
  ): Promise<LeadRow | null> {
    const rows = await manager.query<LeadRow>(
      `UPDATE leads l SET status = $4, external_id = $5, status_reason = $6, version = l.version + 1,
              updated_at = statement_timestamp(), status_updated_at = CASE WHEN $7 THEN statement_timestamp() ELSE l.status_updated_at END
        WHERE l.org_id = $1 AND l.lead_id = $2 AND l.version = $3
        RETURNING ${COLUMNS}`,
      [orgId, leadId, version, next.status, next.external_id, next.status_reason, statusChanged],
    );
    return rows[0] ?? null;
  }
}
