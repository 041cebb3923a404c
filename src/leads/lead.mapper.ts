import type { LeadDto, LeadIntakeDto } from './dto/lead.dto.js';
import { INTAKE_FIELDS, type LeadIntake } from './lead-model.js';
import type { LeadRow } from './leads.tables.js';

/** Row to the spec's Lead, member by member. */
export function toLeadDto(r: LeadRow): LeadDto {
  return {
    lead_id: r.lead_id,
    call_id: r.call_id,
    captured_at: r.captured_at.toISOString(),
    status: r.status,
    status_updated_at: r.status_updated_at ? r.status_updated_at.toISOString() : null,
    updated_at: r.updated_at ? r.updated_at.toISOString() : null,
    category: r.category,
    urgency: r.urgency,
    language: r.language,
    intake_completeness: r.intake_completeness,
    phone: r.phone,
    phone_extension: r.phone === null ? null : r.phone_extension,
    email: r.email,
    external_id: r.external_id,
    status_reason: r.status_reason,
    untrusted: { name: r.untrusted_name, incident_date: r.untrusted_incident_date },
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
