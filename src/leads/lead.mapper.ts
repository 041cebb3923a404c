import type { LeadDto, LeadIntakeDto } from './dto/lead.dto.js';
import { INTAKE_FIELDS, type LeadIntake } from './lead-model.js';
import type { LeadRow } from './leads.repository.js';

/** Row to the spec's Lead, member by member. */
export function toLeadDto(r: LeadRow): LeadDto {
  return {
    lead_id: r.leadId,
    call_id: r.callId,
    captured_at: r.capturedAt.toISOString(),
    status: r.status,
    status_updated_at: r.statusUpdatedAt ? r.statusUpdatedAt.toISOString() : null,
    updated_at: r.updatedAt ? r.updatedAt.toISOString() : null,
    category: r.category,
    urgency: r.urgency,
    language: r.language,
    intake_completeness: r.intakeCompleteness,
    phone: r.phone,
    phone_extension: r.phone === null ? null : r.phoneExtension,
    email: r.email,
    external_id: r.externalId,
    status_reason: r.statusReason,
    untrusted: { name: r.untrustedName, incident_date: r.untrustedIncidentDate },
  };
}

/** Every intake field present, each null when not recorded. */
export function toIntakeDto(i: LeadIntake | null | undefined): LeadIntakeDto | null {
  if (!i) return null;
  const u = i.untrusted ?? {};
  const untrusted: Record<string, string | boolean | null> = {};
  for (const f of INTAKE_FIELDS.strings) untrusted[f] = typeof u[f] === 'string' ? u[f] : null;
  for (const f of INTAKE_FIELDS.booleans) untrusted[f] = typeof u[f] === 'boolean' ? u[f] : null;
  return {
    extracted_at: i.extracted_at ?? null,
    completeness: i.completeness ?? null,
    untrusted: untrusted as unknown as LeadIntakeDto['untrusted'],
  };
}
