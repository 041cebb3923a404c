import { Injectable } from '@nestjs/common';
import { Database, type Tx } from '../database/sql.js';
import { AuditService } from '../audit/index.js';
import { InvalidRequestError, NotFoundError } from '../common/errors/problems.js';
import { cursorScopeOf, type ApiPrincipal } from '../common/http/principal.js';
import { KeysetCursors, listPageFields, type KeysetPosition } from '../common/pagination/keyset.js';
import { exactInstant } from '../common/instant.js';
import { CALLER_NUMBER_MESSAGE, phoneFilterValue } from '../common/phone.js';
import { AppConfig } from '../config/app-config.js';
import { KeyStanding } from '../auth/index.js';
import { beginChange } from '../database/change-stamp.js';
import { referenceKey } from './call-enums.js';
import { CallMapper } from './call.mapper.js';
import type { CallRef, CallReference, CallWriteState, IngestedCall } from './call-model.js';
import { CallsRepository, type CallListFilters, type CallListRow } from './calls.repository.js';
import type { CallListDto, CallResponseDto } from './dto/call.dto.js';
import type { ListCallsQuery } from './dto/list-calls.query.js';
import { CALL_PAGE } from './call-rules.js';

export type { CallRef } from './call-model.js';

const CURSOR_KIND = 'calls';

/**
 * A date-time query value as the exact instant it names (ISO 8601 UTC, to the
 * microsecond, instant.ts), so SQL compares at the precision given and never
 * depends on a session or process time zone. A value without a UTC offset is
 * read as UTC.
 */
export const toInstant = (value: string | undefined, param: string): string | undefined => {
  if (value === undefined) return undefined;
  const at = exactInstant(value);
  // Only a value the query validator refused reads as null: a caller that skipped it still gets the same 400.
  if (at === null) throw new InvalidRequestError(`${param} must be a date-time such as 2026-05-01T00:00:00Z.`, param);
  return at;
};

@Injectable()
export class CallsService {
  private readonly mapper: CallMapper;

  constructor(
    private readonly db: Database,
    private readonly repo: CallsRepository,
    private readonly audit: AuditService,
    private readonly cursors: KeysetCursors,
    private readonly config: AppConfig,
    private readonly standing: KeyStanding,
  ) {
    this.mapper = new CallMapper(config.dashboardUrl);
  }

  /**
   * The firm's call in this mode, or 404 (another firm's or another mode's call answers exactly like a missing
   * one). `livemode` null: either mode (the pipeline's and the owner's tools, which name a call by its id alone).
   */
  requireCall(orgId: string, callId: string, livemode: boolean | null): Promise<CallRef> {
    return this.found(this.repo.findRef(null, orgId, callId, livemode));
  }

  /** requireCall inside the caller's transaction (which goes on to change or read the call's parts). */
  requireCallIn(tx: Tx, orgId: string, callId: string, livemode: boolean | null): Promise<CallRef> {
    return this.found(this.repo.findRef(tx, orgId, callId, livemode));
  }

  private async found(lookup: Promise<CallRef | null>): Promise<CallRef> {
    const row = await lookup;
    if (!row) throw new NotFoundError('The call');
    return row;
  }

  /** Recording stored or removed: a change of the call, so updated_at moves (sync-safe stamp, see change-stamp.ts). */
  async setHasRecording(tx: Tx, orgId: string, callId: string, hasRecording: boolean): Promise<void> {
    await beginChange(tx);
    await this.repo.setHasRecording(tx, orgId, callId, hasRecording);
  }

  /** GET /v1/calls */
  async list(principal: ApiPrincipal, q: ListCallsQuery): Promise<CallListDto> {
    const filters: CallListFilters = {
      from: toInstant(q.from, 'from'),
      to: toInstant(q.to, 'to'),
      outcome: q.outcome,
      category: q.category,
      answered: q.answered === undefined ? undefined : q.answered === 'true',
      updatedSince: toInstant(q.updated_since, 'updated_since'),
      callerE164: q.caller_number === undefined ? undefined : parseCallerNumber(q.caller_number),
      // A value without letters or digits has the empty key, which no reference has: an empty list.
      referenceKey: q.reference === undefined ? undefined : referenceKey(q.reference),
      ids: q.ids === undefined ? undefined : [...new Set(q.ids.split(',').map((s) => s.trim()))],
    };
    const fingerprint = { ...filters, ids: filters.ids ? [...filters.ids].sort() : undefined };
    const after = this.cursors.decode(CURSOR_KIND, q.cursor, fingerprint, cursorScopeOf(principal));
    const limit = q.limit ?? CALL_PAGE.default;
    const { timezone, asOf, rows } = await this.readPage(principal, filters, after, limit);
    const page = this.cursors.page(CURSOR_KIND, rows, limit, { filters: fingerprint, firmId: cursorScopeOf(principal) }, (r) => ({
      at: startedAt(r).toISOString(),
      id: r.callId,
    }));
    return {
      timezone,
      caller_data: 'full',
      calls: page.items.map((r) => this.mapper.item(r)),
      ...listPageFields(page, asOf),
    };
  }

  /**
   * Two statements: the key's standing with the timezone and as_of (read before the
   * page's snapshot, change-stamp.ts), then the page; then the audit entry naming the ids read.
   */
  private async readPage(principal: ApiPrincipal, filters: CallListFilters, after: KeysetPosition | null, limit: number) {
    const { timezone, asOf } = await this.standing.listStart(principal, this.config.listAsOfMarginMs);
    const rows = await this.repo.listPage(this.db, principal.orgId, principal.livemode, filters, after, limit);
    await this.auditRead(
      principal,
      'calls.listed',
      rows.slice(0, limit).map((r) => r.callId),
    );
    return { timezone, asOf, rows };
  }

  private auditRead(principal: ApiPrincipal, action: string, ids: string[]): Promise<void> {
    return this.audit.recordRead({ orgId: principal.orgId, keyId: principal.keyId, action, resourceType: 'call', resourceIds: ids });
  }

  /** GET /v1/calls/{call_id}: one statement (the key's standing, the timezone and the call), then the audit entry. */
  async get(principal: ApiPrincipal, callId: string): Promise<CallResponseDto> {
    const { standing, row } = await this.repo.findDetailWithStanding(this.db, principal, callId);
    const timezone = this.standing.confirm(principal, standing);
    if (!row) throw new NotFoundError('The call');
    await this.auditRead(principal, 'call.read', [callId]);
    return { timezone, caller_data: 'full', call: this.mapper.detail(row) };
  }

  /**
   * The call as GET /v1/calls/{call_id} shows it to the key, for a service that acts on it rather than answers
   * with it (the test helpers' re-processing): no read audit entry, so a request refused after it writes nothing.
   */
  async findForKey(principal: ApiPrincipal, callId: string): Promise<CallResponseDto['call'] | null> {
    const row = await this.repo.findDetail(this.db, principal.orgId, principal.livemode, callId);
    return row ? this.mapper.detail(row) : null;
  }

  /** The retention job's batch: test-mode calls made before `cutoff` (at most `limit`), with all that is theirs. */
  removeTestCallsMadeBefore(cutoff: Date, limit: number): Promise<number> {
    return this.repo.deleteTestCallsBefore(this.db, cutoff, limit);
  }

  // ---- the ingestion port's writes (all inside the ingestion transaction) ----

  /** Locks the call for a rewrite and returns what must survive it (null for a new call). */
  lockForWrite(tx: Tx, orgId: string, callId: string): Promise<CallWriteState | null> {
    return this.repo.lockForWrite(tx, orgId, callId);
  }

  /** Writes the call as the pipeline sent it, with its reference keys; has_recording is never touched. Caller has run beginChange. */
  async writeIngested(tx: Tx, orgId: string, call: IngestedCall, leadId: string | null, livemode: boolean): Promise<void> {
    await this.repo.upsert(tx, orgId, call, leadId, livemode);
    const references: CallReference[] = call.untrusted.details?.references ?? [];
    await this.repo.replaceReferences(tx, orgId, call.callId, references);
  }

  markCompletedEvent(tx: Tx, orgId: string, callId: string): Promise<void> {
    return this.repo.markCompletedEvent(tx, orgId, callId);
  }
}

/** A listed call's start (the list reads only calls that have started). */
function startedAt(r: CallListRow): Date {
  if (!r.startedAt) throw new Error(`listed call ${r.callId} has no start`);
  return r.startedAt;
}

/**
 * caller_number filter value to the E.164 number it compares, or 400 naming
 * it when it is not of the form (phone.ts phoneFilterValue): a number of the
 * form that no call can have answers an empty list.
 */
export function parseCallerNumber(value: string): string {
  const e164 = phoneFilterValue(value);
  if (!e164) throw new InvalidRequestError(`${CALLER_NUMBER_MESSAGE}.`, 'caller_number');
  return e164;
}
