import type { LeadStatus } from './lead-model.js';

/** The fields the firm owns on a lead; re-processing never touches them. */
export const FIRM_FIELDS = ['status', 'external_id', 'status_reason'] as const;
export type FirmField = (typeof FIRM_FIELDS)[number];
export type FirmFields = { status: LeadStatus; external_id: string | null; status_reason: string | null };

/** A validated PATCH: a member is present exactly when it was sent (null clears, omitted keeps). */
export interface LeadPatch {
  status?: LeadStatus;
  external_id?: string | null;
  status_reason?: string | null;
  expected_status?: LeadStatus;
}

/**
 * Rule 4: expected_status applies only together with status, and holds when
 * the lead is at the expected status or already at the requested one.
 */
export function expectedStatusHolds(patch: LeadPatch, current: FirmFields): boolean {
  if (patch.status === undefined || patch.expected_status === undefined) return true;
  return current.status === patch.expected_status || current.status === patch.status;
}

/** The firm's fields after the patch: sent members replace, omitted ones stay. */
export function applyPatch(patch: LeadPatch, current: FirmFields): FirmFields {
  return {
    status: patch.status ?? current.status,
    external_id: 'external_id' in patch ? (patch.external_id ?? null) : current.external_id,
    status_reason: 'status_reason' in patch ? (patch.status_reason ?? null) : current.status_reason,
  };
}

/** Which firm fields differ, in the spec's order; none means nothing is written or emitted. */
export function changedFields(next: FirmFields, current: FirmFields): FirmField[] {
  return FIRM_FIELDS.filter((f) => next[f] !== current[f]);
}

/** A concurrent writer already left the lead with every value this patch sends: a no-op, not a conflict. */
export function alreadyApplied(patch: LeadPatch, now: FirmFields): boolean {
  return FIRM_FIELDS.every((f) => !(f in patch) || patch[f] === now[f]);
}
