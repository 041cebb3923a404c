import { Injectable } from '@nestjs/common';
import { AccountService } from '../account/index.js';
import { AuditService } from '../audit/index.js';
import { KeyStanding } from '../auth/index.js';
import { parseCallerNumber, toInstant } from '../calls/index.js';
import { NotFoundError } from '../common/errors/problems.js';
import { StatusConflictError } from './leads.errors.js';
import { cursorScopeOf, type ApiPrincipal } from '../common/http/principal.js';
import { KeysetCursors, listPageFields, type KeysetPosition } from '../common/pagination/keyset.js';
import { AppConfig } from '../config/app-config.js';
import { Database } from '../database/sql.js';
import type { LeadListDto, LeadResponseDto, PatchLeadResponseDto } from './dto/lead.dto.js';
import type { ListLeadsQuery } from './dto/list-leads.query.js';
import type { PatchLeadDto } from './dto/patch-lead.dto.js';
import { LeadWritesService } from './lead-writes.service.js';
import { toIntakeDto, toLeadDto } from './lead.mapper.js';
import { LeadsRepository, type LeadListFilters } from './leads.repository.js';
import { LEAD_PAGE } from './lead-rules.js';

const CURSOR_KIND = 'leads';

/** The leads API: list, detail, PATCH. */
@Injectable()
export class LeadsService {
  constructor(
    private readonly db: Database,
    private readonly repo: LeadsRepository,
    private readonly writes: LeadWritesService,
    private readonly account: AccountService,
    private readonly audit: AuditService,
    private readonly cursors: KeysetCursors,
    private readonly config: AppConfig,
    private readonly standing: KeyStanding,
  ) {}

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
    const after = this.cursors.decode(CURSOR_KIND, q.cursor, { ...filters }, cursorScopeOf(principal));
    const limit = q.limit ?? LEAD_PAGE.default;
    const { timezone, asOf, rows } = await this.readPage(principal, filters, after, limit);
    const page = this.cursors.page(CURSOR_KIND, rows, limit, { filters: { ...filters }, firmId: cursorScopeOf(principal) }, (r) => ({
      at: r.capturedAt.toISOString(),
      id: r.leadId,
    }));
    return {
      timezone,
      caller_data: 'full',
      leads: page.items.map(toLeadDto),
      ...listPageFields(page, asOf),
    };
  }

  /**
   * Two statements: the key's standing with the timezone and as_of (read before the
   * page's snapshot, change-stamp.ts), then the page; then the audit entry naming the ids read.
   */
  private async readPage(principal: ApiPrincipal, filters: LeadListFilters, after: KeysetPosition | null, limit: number) {
    const { timezone, asOf } = await this.standing.listStart(principal, this.config.listAsOfMarginMs);
    const rows = await this.repo.listPage(this.db, principal.orgId, principal.livemode, filters, after, limit);
    await this.auditRead(
      principal,
      'leads.listed',
      rows.slice(0, limit).map((r) => r.leadId),
    );
    return { timezone, asOf, rows };
  }

  /** GET /v1/leads/{lead_id} with the intake: one statement (the key's standing, the timezone and the lead), then the audit entry. */
  async get(principal: ApiPrincipal, leadId: string): Promise<LeadResponseDto> {
    const { standing, row } = await this.repo.findWithStanding(this.db, principal, leadId);
    const timezone = this.standing.confirm(principal, standing);
    if (!row) throw new NotFoundError('The lead');
    await this.auditRead(principal, 'lead.read', [leadId]);
    return { timezone, lead: toLeadDto(row), intake: toIntakeDto(row.intake) };
  }

  private auditRead(principal: ApiPrincipal, action: string, ids: string[], details?: Record<string, unknown>): Promise<void> {
    return this.audit.recordRead({
      orgId: principal.orgId,
      keyId: principal.keyId,
      action,
      resourceType: 'lead',
      resourceIds: ids,
      details,
    });
  }

  /**
   * PATCH /v1/leads/{lead_id}: rules 1 to 6 of the spec (the body was validated by PatchLeadDto).
   * A change is audited as lead.updated in its own transaction; an answer that
   * carries the lead without changing it (changed false, or the 409 whose
   * `lead` member holds it, after its transaction rolled back) is a read of
   * it, audited as lead.read before it is sent.
   */
  async patch(principal: ApiPrincipal, leadId: string, patch: PatchLeadDto): Promise<PatchLeadResponseDto> {
    const timezone = await this.account.timezoneOf(principal.orgId);
    const { row, changes } = await this.update(principal, leadId, patch);
    if (changes.length === 0) await this.auditRead(principal, 'lead.read', [leadId], { via: 'patch', answer: 'unchanged' });
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

  private async update(principal: ApiPrincipal, leadId: string, patch: PatchLeadDto) {
    try {
      return await this.writes.update(principal.orgId, principal.livemode, leadId, patch, { kind: 'api_key', id: principal.keyId });
    } catch (err) {
      if (err instanceof StatusConflictError)
        await this.auditRead(principal, 'lead.read', [leadId], { via: 'patch', answer: 'status_conflict' });
      throw err;
    }
  }
}
