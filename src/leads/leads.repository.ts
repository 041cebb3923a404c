import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { readWithKeyStanding, type KeyCaller, type WithStanding } from '../auth/index.js';
import type { KeysetPosition } from '../common/pagination/keyset.js';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { selectList, type RowOf } from '../database/select-list.js';
import { SqlParams } from '../database/sql-params.js';
import type { PreparingQueryable, Queryable, Tx } from '../database/sql.js';
import { LeadEntity } from './entities/lead.entity.js';
import type { LeadFromCall } from './lead-model.js';

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
export type LeadFirmFields = Pick<LeadEntity, 'status' | 'externalId' | 'statusReason'>;

const PROPERTIES = [
  'leadId',
  'callId',
  'status',
  'statusUpdatedAt',
  'capturedAt',
  'updatedAt',
  'category',
  'urgency',
  'language',
  'intakeCompleteness',
  'phone',
  'phoneExtension',
  'email',
  'externalId',
  'statusReason',
  'untrustedName',
  'untrustedIncidentDate',
  'version',
  'livemode',
] as const;

/** A lead as the list and the writes read it: every column but the firm, the search key and the intake. */
const LEAD = selectList(LeadEntity, 'l', PROPERTIES);
/** A lead with its intake (the detail). */
const WITH_INTAKE = selectList(LeadEntity, 'l', [...PROPERTIES, 'intake']);
/** The same columns, as RETURNING names them in an INSERT (no alias). */
const INSERTED = selectList(LeadEntity, null, PROPERTIES);

const LEAD_ID = selectList(LeadEntity, null, ['leadId']);

/** Column names: under the statements' alias, and alone (an INSERT's, a SET's). */
const [l, col] = [columns(LeadEntity, 'l'), columns(LeadEntity)];

export type LeadRow = RowOf<typeof LEAD>;
export type LeadWithIntakeRow = RowOf<typeof WITH_INTAKE>;

/** What the pipeline owns on a lead, in the column order of insert ($4...) and of updateFromCall ($3...). */
const pipelineValues = (lead: LeadFromCall): unknown[] => [
  lead.capturedAt,
  lead.category,
  lead.urgency,
  lead.language,
  lead.intakeCompleteness,
  lead.phone,
  lead.phoneE164,
  lead.phoneExtension,
  lead.email,
  lead.untrustedName,
  lead.untrustedIncidentDate,
  lead.intake === null ? null : JSON.stringify(lead.intake),
];

const FILTERS: LeadListFilters = {
  status: 'new',
  from: '2026-01-01T00:00:00.000Z',
  to: '2026-02-01T00:00:00.000Z',
  updatedSince: '2026-01-01T00:00:00.000Z',
  callId: DummyValue.TEXT,
  phoneE164: '+13125550123',
  externalId: DummyValue.TEXT,
};
const LEAD_FROM_CALL = { callId: DummyValue.TEXT, intake: null } as LeadFromCall;
const FIRM_FIELDS: LeadFirmFields = { status: 'contacted', externalId: null, statusReason: null };

/** Every query carries the firm's id. Writers have run beginChange (updated_at = clock_timestamp(), see change-stamp.ts). */
@Injectable()
export class LeadsRepository {
  constructor(@InjectRepository(LeadEntity) private readonly leads: Repository<LeadEntity>) {}

  /** Keyset page, newest capture first, lead_id as tie-breaker (leads_org_captured_idx). */
  @GenerateSql(
    { name: 'first page', params: [SQL, DummyValue.UUID, true, {}, null, 100] },
    { name: 'every filter, after a position', params: [SQL, DummyValue.UUID, true, FILTERS, { at: FILTERS.from, id: 'x' }, 100] },
  )
  async listPage(
    db: Queryable,
    orgId: string,
    livemode: boolean,
    f: LeadListFilters,
    after: KeysetPosition | null,
    limit: number,
  ): Promise<LeadRow[]> {
    const q = new SqlParams(orgId);
    const where = [`${l.orgId} = $1`, `${l.livemode} = ${q.add(livemode)}`];
    if (f.status !== undefined) where.push(`${l.status} = ${q.add(f.status)}`);
    if (f.from !== undefined) where.push(`${l.capturedAt} >= ${q.add(f.from)}::timestamptz`);
    if (f.to !== undefined) where.push(`${l.capturedAt} < ${q.add(f.to)}::timestamptz`);
    if (f.updatedSince !== undefined) where.push(`${l.updatedAt} >= ${q.add(f.updatedSince)}::timestamptz`);
    if (f.callId !== undefined) where.push(`${l.callId} = ${q.add(f.callId)}`);
    if (f.phoneE164 !== undefined) where.push(`${l.phoneE164} = ${q.add(f.phoneE164)}`);
    if (f.externalId !== undefined) where.push(`${l.externalId} = ${q.add(f.externalId)}`);
    if (after) where.push(`(${l.capturedAt}, ${l.leadId}) < (${q.add(after.at)}::timestamptz, ${q.add(after.id)})`);
    return db.query(
      LEAD,
      `SELECT ${LEAD} FROM leads l WHERE ${where.join(' AND ')} ORDER BY ${l.capturedAt} DESC, ${l.leadId} DESC LIMIT ${q.add(limit + 1)}`,
      q.values,
    );
  }

  /**
   * GET /v1/leads/{lead_id} in one statement: the calling key's standing and the firm's timezone (auth's
   * readWithKeyStanding), with the lead and its intake when the firm has it in the key's mode.
   */
  @GenerateSql({ params: [SQL, { keyId: DummyValue.UUID, orgId: DummyValue.UUID, livemode: true }, DummyValue.TEXT] })
  findWithStanding(
    db: PreparingQueryable,
    caller: KeyCaller & { livemode: boolean },
    leadId: string,
  ): Promise<WithStanding<LeadWithIntakeRow>> {
    return readWithKeyStanding(db, caller, {
      name: 'lead_with_standing',
      columns: WITH_INTAKE,
      join: (params, firm) =>
        `leads l ON ${l.orgId} = ${firm} AND ${l.leadId} = ${params.add(leadId)} AND ${l.livemode} = ${params.add(caller.livemode)}`,
      present: 'leadId',
    });
  }

  /** The firm's lead in this mode (another mode's answers like a missing one), in the writing transaction. */
  @GenerateSql({ params: [SQL, DummyValue.UUID, true, DummyValue.TEXT] })
  async find(tx: Tx, orgId: string, livemode: boolean, leadId: string): Promise<LeadRow | null> {
    const [row] = await tx.query(LEAD, `SELECT ${LEAD} FROM leads l WHERE ${l.orgId} = $1 AND ${l.leadId} = $2 AND ${l.livemode} = $3`, [
      orgId,
      leadId,
      livemode,
    ]);
    return row ?? null;
  }

  /** The lead id this call already has, if any (ingestion's lookup). */
  async findIdByCall(tx: Tx, orgId: string, callId: string): Promise<string | null> {
    const row = await tx.getRepository(LeadEntity).findOne({ select: { leadId: true }, where: { orgId, callId } });
    return row?.leadId ?? null;
  }

  /** A new lead of a call, in the call's mode. */
  @GenerateSql({ params: [SQL, DummyValue.UUID, DummyValue.TEXT, LEAD_FROM_CALL, true] })
  async insert(tx: Tx, orgId: string, leadId: string, lead: LeadFromCall, livemode: boolean): Promise<LeadRow> {
    const [row] = await tx.query(
      INSERTED,
      `INSERT INTO leads (${col.orgId}, ${col.leadId}, ${col.callId}, ${col.status}, ${col.statusUpdatedAt}, ${col.capturedAt}, ${col.createdAt}, ${col.updatedAt}, ${col.category}, ${col.urgency}, ${col.language},
                          ${col.intakeCompleteness}, ${col.phone}, ${col.phoneE164}, ${col.phoneExtension}, ${col.email}, ${col.untrustedName}, ${col.untrustedIncidentDate}, ${col.intake},
                          ${col.livemode})
       VALUES ($1, $2, $3, 'new', NULL, $4, clock_timestamp(), clock_timestamp(), $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       RETURNING ${INSERTED}`,
      [orgId, leadId, lead.callId, ...pipelineValues(lead), livemode],
    );
    return row;
  }

  /** Re-processing: the pipeline's fields are replaced; status, external_id, status_reason and version are kept. */
  @GenerateSql({ params: [SQL, DummyValue.UUID, DummyValue.TEXT, LEAD_FROM_CALL] })
  async updateFromCall(tx: Tx, orgId: string, leadId: string, lead: LeadFromCall): Promise<void> {
    await tx.execute(
      `UPDATE leads SET ${col.capturedAt} = $3, ${col.category} = $4, ${col.urgency} = $5, ${col.language} = $6, ${col.intakeCompleteness} = $7, ${col.phone} = $8, ${col.phoneE164} = $9,
                        ${col.phoneExtension} = $10, ${col.email} = $11, ${col.untrustedName} = $12, ${col.untrustedIncidentDate} = $13, ${col.intake} = $14, ${col.updatedAt} = clock_timestamp()
        WHERE ${col.orgId} = $1 AND ${col.leadId} = $2`,
      [orgId, leadId, ...pipelineValues(lead)],
    );
  }

  /** The lead's call was re-processed without finding a lead: the lead stays, its updated_at moves. */
  @GenerateSql({ params: [SQL, DummyValue.UUID, DummyValue.TEXT] })
  async touchForCall(tx: Tx, orgId: string, callId: string): Promise<string | null> {
    const [row] = await tx.query(
      LEAD_ID,
      `UPDATE leads SET ${col.updatedAt} = clock_timestamp() WHERE ${col.orgId} = $1 AND ${col.callId} = $2 RETURNING ${LEAD_ID}`,
      [orgId, callId],
    );
    return row?.leadId ?? null;
  }

  /**
   * Optimistic write of the firm's fields: only if nobody changed them since
   * `version` was read. Null when the version moved (the caller answers 409
   * or a no-op after re-reading). One stamp for both times: statement_timestamp(),
   * taken after beginChange gave the transaction its xid.
   */
  @GenerateSql({ params: [SQL, DummyValue.UUID, DummyValue.TEXT, 1, FIRM_FIELDS, true] })
  async updateFirmFields(
    tx: Tx,
    orgId: string,
    leadId: string,
    version: number,
    next: LeadFirmFields,
    statusChanged: boolean,
  ): Promise<LeadRow | null> {
    const [row] = await tx.query(
      LEAD,
      `UPDATE leads l SET ${col.status} = $4, ${col.externalId} = $5, ${col.statusReason} = $6, ${col.version} = ${l.version} + 1,
              ${col.updatedAt} = statement_timestamp(), ${col.statusUpdatedAt} = CASE WHEN $7 THEN statement_timestamp() ELSE ${l.statusUpdatedAt} END
        WHERE ${l.orgId} = $1 AND ${l.leadId} = $2 AND ${l.version} = $3
        RETURNING ${LEAD}`,
      [orgId, leadId, version, next.status, next.externalId, next.statusReason, statusChanged],
    );
    return row ?? null;
  }
}
