import { Injectable } from '@nestjs/common';
import { Database, type Tx } from '../database/sql.js';
import { AuditService } from '../audit/index.js';
import { NotFoundError } from '../common/errors/problems.js';
import { StatusConflictError } from './leads.errors.js';
import { turnOf, WriteTurns } from '../common/write-turns.js';
import { beginChange } from '../database/change-stamp.js';
import type { LEAD_CHANGED_BY_KINDS, LeadFromCall } from './lead-model.js';
import {
  alreadyApplied,
  applyPatch,
  changedFields,
  expectedStatusHolds,
  type FirmField,
  type FirmFields,
  type LeadPatch,
} from './lead-patch-rules.js';
import { toLeadDto } from './lead.mapper.js';
import { LeadsRepository, type LeadRow } from './leads.repository.js';

export type LeadChangedBy = { kind: (typeof LEAD_CHANGED_BY_KINDS)[number]; id: string };

/** A lead write, told inside its transaction to whoever records its event (the events context: it depends on leads, not the reverse). */
export type LeadChange =
  | { kind: 'created'; orgId: string; lead: LeadRow }
  | { kind: 'updated'; orgId: string; before: LeadRow; after: LeadRow; changes: FirmField[]; by: LeadChangedBy };
export type LeadChangeRecorder = (tx: Tx, change: LeadChange) => Promise<void>;

/** Every change to leads: the firm's PATCH (and the demo acting as a key), and the pipeline's lead of a call. */
@Injectable()
export class LeadWritesService {
  constructor(
    private readonly db: Database,
    private readonly repo: LeadsRepository,
    private readonly audit: AuditService,
    private readonly turns: WriteTurns,
  ) {}

  private recorder: LeadChangeRecorder | null = null;

  /** The events context registers here at start-up; a lead change is never written without its event. */
  onChange(recorder: LeadChangeRecorder): void {
    this.recorder = recorder;
  }

  private recordChange(tx: Tx, change: LeadChange): Promise<void> {
    if (!this.recorder) throw new Error('No recorder of lead events is registered (the events module is not loaded).');
    return this.recorder(tx, change);
  }

  /**
   * The one way a lead's firm-owned fields change. Reads the lead, decides,
   * then writes only if its version is still the one read; a change that
   * landed in between is a 409 (or a no-op when it left the sent values),
   * never a silent overwrite. The change, its lead.updated event and the
   * audit entry commit together. Writers of one lead take turns in this
   * process before they take a connection (their row lock would make them
   * wait holding one).
   */
  update(
    orgId: string,
    livemode: boolean,
    leadId: string,
    patch: LeadPatch,
    changedBy: LeadChangedBy,
  ): Promise<{ row: LeadRow; changes: FirmField[] }> {
    return this.turns.run(turnOf.lead(orgId, leadId), () => this.updateNow(orgId, livemode, leadId, patch, changedBy));
  }

  private updateNow(
    orgId: string,
    livemode: boolean,
    leadId: string,
    patch: LeadPatch,
    changedBy: LeadChangedBy,
  ): Promise<{ row: LeadRow; changes: FirmField[] }> {
    return this.db.transaction(async (tx) => {
      await beginChange(tx);
      const current = await this.repo.find(tx, orgId, livemode, leadId);
      if (!current) throw new NotFoundError('The lead');
      if (!expectedStatusHolds(patch, firmFields(current))) {
        throw conflict(current, `The lead's status is ${current.status}, not ${patch.expected_status} as expected; nothing was changed.`);
      }
      const next = applyPatch(patch, firmFields(current));
      const changes = changedFields(next, firmFields(current));
      if (changes.length === 0) return { row: current, changes };
      const written = { status: next.status, externalId: next.external_id, statusReason: next.status_reason };
      const updated = await this.repo.updateFirmFields(tx, orgId, leadId, current.version, written, next.status !== current.status);
      if (!updated) return this.afterLostRace(tx, orgId, livemode, leadId, patch);
      await this.recordUpdate(tx, orgId, current, updated, changes, changedBy);
      return { row: updated, changes };
    });
  }

  /** Someone else changed the lead after our read. */
  private async afterLostRace(tx: Tx, orgId: string, livemode: boolean, leadId: string, patch: LeadPatch) {
    const now = await this.repo.find(tx, orgId, livemode, leadId);
    if (!now) throw new NotFoundError('The lead');
    if (alreadyApplied(patch, firmFields(now))) return { row: now, changes: [] as FirmField[] };
    throw conflict(now, `The lead changed while this request was being handled; its status is now ${now.status}. Read it again and retry.`);
  }

  private async recordUpdate(tx: Tx, orgId: string, before: LeadRow, after: LeadRow, changes: FirmField[], by: LeadChangedBy) {
    await this.recordChange(tx, { kind: 'updated', orgId, before, after, changes, by });
    await this.audit.record(
      {
        orgId,
        actor: by.kind === 'api_key' ? { type: 'api_key', id: by.id } : { type: 'system', id: by.id },
        action: 'lead.updated',
        resourceType: 'lead',
        resourceIds: [after.leadId],
        details: { changes, previous_status: before.status, status: after.status },
      },
      tx,
    );
  }

  // ---- the ingestion port (inside the ingestion transaction, after beginChange) ----

  /** The lead id this call already has (attached or not), if any. */
  findIdByCall(tx: Tx, orgId: string, callId: string): Promise<string | null> {
    return this.repo.findIdByCall(tx, orgId, callId);
  }

  /**
   * The call's lead after (re-)processing. First time: created with status
   * new and lead.created recorded. Later: the pipeline's fields replaced,
   * status / external_id / status_reason kept, updated_at moved.
   */
  async upsertForCall(
    tx: Tx,
    orgId: string,
    leadId: string,
    exists: boolean,
    input: LeadFromCall,
    livemode: boolean,
  ): Promise<{ leadId: string; created: boolean }> {
    if (exists) {
      await this.repo.updateFromCall(tx, orgId, leadId, input);
      return { leadId, created: false };
    }
    const row = await this.repo.insert(tx, orgId, leadId, input, livemode);
    await this.recordChange(tx, { kind: 'created', orgId, lead: row });
    return { leadId: row.leadId, created: true };
  }

  /** Re-processing found no lead: the earlier lead (if any) stays readable, detached from the call; its updated_at moves. */
  detachFromCall(tx: Tx, orgId: string, callId: string): Promise<string | null> {
    return this.repo.touchForCall(tx, orgId, callId);
  }
}

/** The firm's fields as the PATCH rules name them (the API's names). */
function firmFields(row: LeadRow): FirmFields {
  return { status: row.status, external_id: row.externalId, status_reason: row.statusReason };
}

function conflict(current: LeadRow, detail: string): StatusConflictError {
  return new StatusConflictError(detail, { current_status: current.status, lead: toLeadDto(current) });
}
