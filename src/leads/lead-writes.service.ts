import { Injectable } from '@nestjs/common';
import { Database, type Tx } from '../database/sql.js';
import { AuditService } from '../audit/index.js';
import { NotFoundError, StatusConflictError } from '../common/errors/problems.js';
import { beginChange } from '../database/change-stamp.js';
import type { LEAD_CHANGED_BY_KINDS, LeadFromCall } from './lead-model.js';
import type { LeadRow } from './leads.tables.js';
import { alreadyApplied, applyPatch, changedFields, expectedStatusHolds, type FirmField, type LeadPatch } from './lead-patch-rules.js';
import { toLeadDto } from './lead.mapper.js';
import { LeadsRepository } from './leads.repository.js';

export type LeadChangedBy = { kind: (typeof LEAD_CHANGED_BY_KINDS)[number]; id: string };

/** A lead write, told inside its transaction to whoever records its event (the events context: it depends on leads, not the reverse). */
export type LeadChange =
  | { kind: 'created'; orgId: string; lead: LeadRow }
  | { kind: 'updated'; orgId: string; before: LeadRow; after: LeadRow; changes: FirmField[]; by: LeadChangedBy };
export type LeadChangeRecorder = (manager: Tx, change: LeadChange) => Promise<void>;

/** Every change to leads: the firm's PATCH (and the demo acting as a key), and the pipeline's lead of a call. */
@Injectable()
export class LeadWritesService {
  constructor(
    private readonly db: Database,
    private readonly repo: LeadsRepository,
    private readonly audit: AuditService,
  ) {}

  private recorder: LeadChangeRecorder | null = null;

  /** The events context registers here at start-up; a lead change is never written without its event. */
  onChange(recorder: LeadChangeRecorder): void {
    this.recorder = recorder;
  }

  private recordChange(manager: Tx, change: LeadChange): Promise<void> {
    if (!this.recorder) throw new Error('No recorder of lead events is registered (the events module is not loaded).');
    return this.recorder(manager, change);
  }

  /**
   * The one way a lead's firm-owned fields change. Reads the lead, decides,
   * then writes only if its version is still the one read; a change that
   * landed in between is a 409 (or a no-op when it left the sent values),
   * never a silent overwrite. The change, its lead.updated event and the
   * audit entry commit together.
   */
  update(
    orgId: string,
    livemode: boolean,
    leadId: string,
    patch: LeadPatch,
    changedBy: LeadChangedBy,
  ): Promise<{ row: LeadRow; changes: FirmField[] }> {
    return this.db.transaction(async (m) => {
      await beginChange(m);
      const current = await this.repo.find(m, orgId, livemode, leadId);
      if (!current) throw new NotFoundError('The lead');
      if (!expectedStatusHolds(patch, current)) {
        throw conflict(current, `The lead's status is ${current.status}, not ${patch.expected_status} as expected; nothing was changed.`);
      }
      const next = applyPatch(patch, current);
      const changes = changedFields(next, current);
      if (changes.length === 0) return { row: current, changes };
      const updated = await this.repo.updateFirmFields(m, orgId, leadId, current.version, next, next.status !== current.status);
      if (!updated) return this.afterLostRace(m, orgId, livemode, leadId, patch);
      await this.recordUpdate(m, orgId, current, updated, changes, changedBy);
      return { row: updated, changes };
    });
  }

  /** Someone else changed the lead after our read. */
  private async afterLostRace(m: Tx, orgId: string, livemode: boolean, leadId: string, patch: LeadPatch) {
    const now = await this.repo.find(m, orgId, livemode, leadId);
    if (!now) throw new NotFoundError('The lead');
    if (alreadyApplied(patch, now)) return { row: now, changes: [] as FirmField[] };
    throw conflict(now, `The lead changed while this request was being handled; its status is now ${now.status}. Read it again and retry.`);
  }

  private async recordUpdate(m: Tx, orgId: string, before: LeadRow, after: LeadRow, changes: FirmField[], by: LeadChangedBy) {
    await this.recordChange(m, { kind: 'updated', orgId, before, after, changes, by });
    await this.audit.record(
      {
        orgId,
        actor: by.kind === 'api_key' ? { type: 'api_key', id: by.id } : { type: 'system', id: by.id },
        action: 'lead.updated',
        resourceType: 'lead',
        resourceIds: [after.lead_id],
        details: { changes, previous_status: before.status, status: after.status },
      },
      m,
    );
  }

  // ---- the ingestion port (inside the ingestion transaction, after beginChange) ----

  /** The lead id this call already has (attached or not), if any. */
  findIdByCall(manager: Tx, orgId: string, callId: string): Promise<string | null> {
    return this.repo.findIdByCall(manager, orgId, callId);
  }

  /**
   * The call's lead after (re-)processing. First time: created with status
   * new and lead.created recorded. Later: the pipeline's fields replaced,
   * status / external_id / status_reason kept, updated_at moved.
   */
  async upsertForCall(
    manager: Tx,
    orgId: string,
    leadId: string,
    exists: boolean,
    input: LeadFromCall,
    livemode: boolean,
  ): Promise<{ leadId: string; created: boolean }> {
    if (exists) {
      await this.repo.updateFromCall(manager, orgId, leadId, input);
      return { leadId, created: false };
    }
    const row = await this.repo.insert(manager, orgId, leadId, input, livemode);
    await this.recordChange(manager, { kind: 'created', orgId, lead: row });
    return { leadId: row.lead_id, created: true };
  }

  /** Re-processing found no lead: the earlier lead (if any) stays readable, detached from the call; its updated_at moves. */
  detachFromCall(manager: Tx, orgId: string, callId: string): Promise<string | null> {
    return this.repo.touchForCall(manager, orgId, callId);
  }
}

function conflict(current: LeadRow, detail: string): StatusConflictError {
  return new StatusConflictError(detail, { current_status: current.status, lead: toLeadDto(current) });
}
