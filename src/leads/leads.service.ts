import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AccountService } from '../account/index.js';
import { AuditService } from '../audit/index.js';
import { parseCallerNumber, toInstant } from '../calls/index.js';
import { InvalidRequestError, NotFoundError, StatusConflictError } from '../common/errors/problems.js';
import type { ApiPrincipal } from '../common/http/principal.js';
import { CursorCodec } from '../common/pagination/cursor.js';
import { AppConfig } from '../config/app-config.js';
import { beginChange, readAsOf } from '../database/change-stamp.js';
import { PoolSql } from '../database/pool-sql.js';
import { EventsService } from '../events/index.js';
import type { LeadDto, LeadListDto, LeadResponseDto, PatchLeadResponseDto } from './dto/lead.dto.js';
import type { ListLeadsQuery } from './dto/list-leads.query.js';
import { toIntakeDto, toLeadDto } from './lead.mapper.js';
import { LEAD_STATUSES, SETTABLE_STATUSES, type LeadFromCall, type LeadRow, type LeadStatus } from './lead-model.js';
import { LeadsRepository, type LeadFirmFields, type LeadListFilters } from './leads.repository.js';

const CURSOR_KIND = 'leads';
const FIRM_FIELDS = ['status', 'external_id', 'status_reason'] as const;
type FirmField = (typeof FIRM_FIELDS)[number];

/** A validated PATCH body: a member is present exactly when it was sent. */
export interface LeadPatch {
  status?: LeadStatus;
  external_id?: string | null;
  status_reason?: string | null;
  expected_status?: LeadStatus;
}

export type LeadChangedBy = { kind: 'api_key' | 'connector'; id: string };

const LINE_BREAK = /[\r\n\u000b\u000c\u0085\u2028\u2029]/;
const length = (s: string) => [...s].length;

/**
 * PATCH body rules of the spec: only status, external_id, status_reason and
 * expected_status; at least one of the first three; status never new;
 * external_id 1 to 200 characters on one line or null; status_reason 1 to 500
 * characters or null. The 400 names the member in `param`.
 */
export function parseLeadPatch(body: unknown): LeadPatch {
  if (body === null || body === undefined || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidRequestError('The body must be a JSON object with at least one of status, external_id, status_reason.', 'body');
  }
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) {
    if (![...FIRM_FIELDS, 'expected_status'].includes(k)) {
      throw new InvalidRequestError(`${k} is not allowed; the body takes status, external_id, status_reason and expected_status.`, k);
    }
  }
  const out: LeadPatch = {};
  if ('status' in b) {
    if (b.status === 'new')
      throw new InvalidRequestError('status cannot be set back to new; send contacted, signed or rejected.', 'status');
    if (typeof b.status !== 'string' || !(SETTABLE_STATUSES as readonly string[]).includes(b.status)) {
      throw new InvalidRequestError(`status must be one of ${SETTABLE_STATUSES.join(', ')}.`, 'status');
    }
    out.status = b.status as LeadStatus;
  }
  if ('external_id' in b) {
    const v = b.external_id;
    if (v !== null && (typeof v !== 'string' || length(v) < 1 || length(v) > 200 || LINE_BREAK.test(v))) {
      throw new InvalidRequestError('external_id must be a string of 1 to 200 characters on one line, or null to clear it.', 'external_id');
    }
    out.external_id = v as string | null;
  }
  if ('status_reason' in b) {
    const v = b.status_reason;
    if (v !== null && (typeof v !== 'string' || length(v) < 1 || length(v) > 500)) {
      throw new InvalidRequestError('status_reason must be a string of 1 to 500 characters, or null to clear it.', 'status_reason');
    }
    out.status_reason = v as string | null;
  }
  if ('expected_status' in b) {
    if (typeof b.expected_status !== 'string' || !(LEAD_STATUSES as readonly string[]).includes(b.expected_status)) {
      throw new InvalidRequestError(`expected_status must be one of ${LEAD_STATUSES.join(', ')}.`, 'expected_status');
    }
    out.expected_status = b.expected_status as LeadStatus;
  }
  if (!FIRM_FIELDS.some((f) => f in out)) {
    throw new InvalidRequestError('Send at least one of status, external_id, status_reason.', 'body');
  }
  return out;
}

@Injectable()
export class LeadsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: PoolSql,
    private readonly repo: LeadsRepository,
    private readonly account: AccountService,
    private readonly audit: AuditService,
    private readonly events: EventsService,
    private readonly cursors: CursorCodec,
    private readonly config: AppConfig,
  ) {}

  private url(leadId: string): string {
    return `${this.config.baseUrl}/v1/leads/${encodeURIComponent(leadId)}`;
  }

  /** GET /v1/leads */
  async list(principal: ApiPrincipal, q: ListLeadsQuery): Promise<LeadListDto> {
    const filters: LeadListFilters = {
      status: q.status,
      from: toInstant(q.from, 'from'),
      to: toInstant(q.to, 'to'),
      updatedSince: toInstant(q.updated_since, 'updated_since'),
      callId: q.call_id,
      phoneE164: q.caller_number === undefined ? undefined : parseCallerNumber(q.caller_number),
      externalId: q.external_id,
    };
    const after = q.cursor === undefined ? null : this.decodeCursor(q.cursor, { ...filters });
    const limit = q.limit ?? 20;
    const [timezone, { asOf, rows }] = await Promise.all([
      this.account.timezoneOf(principal.orgId),
      (async () => {
        // as_of first, then the page: two statements, the page's snapshot younger (change-stamp.ts).
        const asOf = await readAsOf(this.sql, this.config.listAsOfMarginMs);
        const rows = await this.repo.listPage(this.sql, principal.orgId, filters, after, limit);
        await this.auditRead(
          principal,
          'leads.listed',
          rows.slice(0, limit).map((r) => r.lead_id),
        );
        return { asOf, rows };
      })(),
    ]);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    const last = page[page.length - 1];
    return {
      timezone,
      caller_data: 'full',
      leads: page.map(toLeadDto),
      has_more: hasMore,
      next_cursor:
        hasMore && last ? this.cursors.encode(CURSOR_KIND, [last.captured_at.toISOString(), last.lead_id], { ...filters }) : null,
      as_of: asOf,
      truncated: false,
      note: null,
    };
  }

  private auditRead(principal: ApiPrincipal, action: string, ids: string[]): Promise<void> {
    return this.audit.recordRead({ orgId: principal.orgId, keyId: principal.keyId, action, resourceType: 'lead', resourceIds: ids });
  }

  /** GET /v1/leads/{lead_id} with the intake. */
  async get(principal: ApiPrincipal, leadId: string): Promise<LeadResponseDto> {
    const [timezone, row] = await Promise.all([
      this.account.timezoneOf(principal.orgId),
      (async () => {
        const row = await this.repo.find(this.sql, principal.orgId, leadId, true);
        if (!row) throw new NotFoundError('The lead');
        await this.auditRead(principal, 'lead.read', [leadId]);
        return row;
      })(),
    ]);
    return { timezone, lead: toLeadDto(row), intake: toIntakeDto(row.intake) };
  }

  /**
   * PATCH /v1/leads/{lead_id}: rules 1 to 6 of the spec. Reads the lead,
   * decides, then writes only if its version is still the one read; a change
   * that landed in between is a 409, never a silent overwrite. The change, its
   * lead.updated event and the audit entry commit together.
   */
  async patch(principal: ApiPrincipal, leadId: string, body: unknown): Promise<PatchLeadResponseDto> {
    const input = parseLeadPatch(body);
    const timezone = await this.account.timezoneOf(principal.orgId);
    const { row, changes } = await this.update(principal.orgId, leadId, input, { kind: 'api_key', id: principal.keyId });
    const lead = toLeadDto(row);
    return {
      timezone,
      caller_data: 'full',
      lead,
      changed: changes.length > 0,
      next_step:
        changes.length > 0
          ? `Lead updated (${changes.join(', ')}); its status is ${lead.status}. A lead.updated event was recorded.`
          : `Nothing changed: the lead already has these values (status ${lead.status}).`,
    };
  }

  /**
   * The one way a lead's firm-owned fields change (PATCH, and the demo
   * history acting as an API key). Reads the lead, decides, then writes only
   * if its version is still the one read; a change that landed in between is
   * a 409, never a silent overwrite. The change, its lead.updated event and
   * the audit entry commit together.
   */
  async update(orgId: string, leadId: string, input: LeadPatch, changedBy: LeadChangedBy): Promise<{ row: LeadRow; changes: FirmField[] }> {
    return this.dataSource.transaction(async (m) => {
      await beginChange(m);
      const current = await this.repo.find(m, orgId, leadId);
      if (!current) throw new NotFoundError('The lead');
      this.checkExpected(input, current);
      const next = this.apply(input, current);
      const changes = FIRM_FIELDS.filter((f) => next[f] !== current[f]);
      if (changes.length === 0) return { row: current, changes: [] as FirmField[] };
      const updated = await this.repo.updateFirmFields(m, orgId, leadId, current.version, next, next.status !== current.status);
      if (!updated) {
        // Someone else changed the lead after our read.
        const now = await this.repo.find(m, orgId, leadId);
        if (!now) throw new NotFoundError('The lead');
        if (FIRM_FIELDS.every((f) => !(f in input) || input[f] === now[f])) return { row: now, changes: [] as FirmField[] };
        throw this.conflict(
          now,
          `The lead changed while this request was being handled; its status is now ${now.status}. Read it again and retry.`,
        );
      }
      await this.events.record(m, {
        orgId,
        type: 'lead.updated',
        data: {
          lead_id: updated.lead_id,
          call_id: updated.call_id,
          status: updated.status,
          previous_status: current.status,
          changes,
          changed_by: changedBy,
          url: this.url(updated.lead_id),
        },
      });
      await this.audit.record(
        {
          orgId,
          actor: changedBy.kind === 'api_key' ? { type: 'api_key', id: changedBy.id } : { type: 'system', id: changedBy.id },
          action: 'lead.updated',
          resourceType: 'lead',
          resourceIds: [leadId],
          details: { changes, previous_status: current.status, status: updated.status },
        },
        m,
      );
      return { row: updated, changes };
    });
  }

  /** Rule 4: expected_status applies only with status, and not when the lead is already at the requested status. */
  private checkExpected(input: LeadPatch, current: LeadRow): void {
    if (input.status === undefined || input.expected_status === undefined) return;
    if (current.status === input.expected_status || current.status === input.status) return;
    throw this.conflict(current, `The lead's status is ${current.status}, not ${input.expected_status} as expected; nothing was changed.`);
  }

  private apply(input: LeadPatch, current: LeadRow): LeadFirmFields {
    return {
      status: input.status ?? current.status,
      external_id: 'external_id' in input ? (input.external_id ?? null) : current.external_id,
      status_reason: 'status_reason' in input ? (input.status_reason ?? null) : current.status_reason,
    };
  }

  private conflict(current: LeadRow, detail: string): StatusConflictError {
    return new StatusConflictError(detail, { current_status: current.status, lead: toLeadDto(current) });
  }

  // ---- the ingestion port (inside the ingestion transaction, after beginChange) ----

  /** The lead id this call already has (attached or not), if any. */
  findIdByCall(manager: EntityManager, orgId: string, callId: string): Promise<string | null> {
    return this.repo.findIdByCall(manager, orgId, callId);
  }

  /**
   * The call's lead after (re-)processing. First time: created with status
   * new and lead.created recorded. Later: the pipeline's fields replaced,
   * status / external_id / status_reason kept, updated_at moved.
   */
  async upsertForCall(
    manager: EntityManager,
    orgId: string,
    leadId: string,
    exists: boolean,
    input: LeadFromCall,
  ): Promise<{ leadId: string; created: boolean }> {
    if (exists) {
      await this.repo.updateFromCall(manager, orgId, leadId, input);
      return { leadId, created: false };
    }
    const row = await this.repo.insert(manager, orgId, leadId, input);
    await this.events.record(manager, {
      orgId,
      type: 'lead.created',
      data: {
        lead_id: row.lead_id,
        call_id: row.call_id,
        status: 'new',
        category: row.category,
        urgency: row.urgency,
        url: this.url(row.lead_id),
      },
    });
    return { leadId: row.lead_id, created: true };
  }

  /** Re-processing found no lead: the earlier lead (if any) stays readable, detached from the call; its updated_at moves. */
  detachFromCall(manager: EntityManager, orgId: string, callId: string): Promise<string | null> {
    return this.repo.touchForCall(manager, orgId, callId);
  }

  private decodeCursor(cursor: string, fingerprint: Record<string, unknown>): { capturedAt: string; leadId: string } {
    const p = this.cursors.decode(CURSOR_KIND, cursor, fingerprint);
    if (p.length !== 2 || typeof p[0] !== 'string' || typeof p[1] !== 'string' || Number.isNaN(Date.parse(p[0]))) {
      throw new InvalidRequestError('cursor is not valid; pass next_cursor exactly as the previous page returned it.', 'cursor');
    }
    return { capturedAt: p[0], leadId: p[1] };
  }
}
