import { maskPhone } from '../common/phone.js';
import type { CallDetails, CallHandling, CallUntrusted, ConversationSummary } from './call-model.js';
import type { CallRow } from './calls.tables.js';
import type { CallDetailDto, CallDetailsDto, CallDto, CallUntrustedDto, ConversationSummaryDto, HandlingDto } from './dto/call.dto.js';
import { explainHandling } from './explanation.js';

/**
 * Rows to the spec's field lists, member by member: a new column or a stray
 * member in stored JSON can never reach a response by accident.
 */
export class CallMapper {
  constructor(private readonly dashboardUrl: string | null) {}

  item(r: CallRow): CallDto {
    return {
      call_id: r.call_id,
      started_at: r.started_at ? r.started_at.toISOString() : null,
      duration_s: r.duration_s,
      answered: r.answered,
      category: r.category,
      urgency: r.urgency,
      language: r.language,
      outcome: r.outcome,
      lead_captured: r.lead_id !== null,
      lead_id: r.lead_id,
      from_masked: maskPhone(r.from_e164),
      from: r.from_e164,
      callback_number: r.callback_number,
      callback_extension: r.callback_number === null ? null : r.callback_extension,
      updated_at: r.updated_at ? r.updated_at.toISOString() : null,
      processing_complete: r.processing_complete,
      dashboard_url: this.dashboardUrl ? `${this.dashboardUrl}/calls/${encodeURIComponent(r.call_id)}` : null,
      has_recording: r.has_recording,
      untrusted: untrusted(r.untrusted),
    };
  }

  detail(r: CallRow): CallDetailDto {
    const base = this.item(r);
    const summary = conversationSummary(r.conversation_summary ?? null);
    const handling = handlingDto(r.handling ?? null);
    return {
      ...base,
      untrusted: base.untrusted === null ? null : { ...base.untrusted, conversation_summary: summary },
      handling,
      explanation: explainHandling(r.handling ?? null),
      config_version: r.config_version ?? null,
      transcript_covers: summary === null ? null : [...summary.covers],
    };
  }
}

function untrusted(u: CallUntrusted | null): CallUntrustedDto | null {
  if (!u) return { summary: { reason: null, message: null }, caller_name: null, details: null };
  return {
    summary: { reason: u.summary?.reason ?? null, message: u.summary?.message ?? null },
    caller_name: u.caller_name ?? null,
    details: details(u.details ?? null),
  };
}

function details(d: CallDetails | null): CallDetailsDto | null {
  if (!d) return null;
  return {
    about: d.about.map((a) => ({ name: a.name, relation: a.relation })),
    caller_organization: d.caller_organization,
    asked_for: d.asked_for,
    message_for: d.message_for,
    best_time: d.best_time,
    references: d.references.map((x) => ({ kind: x.kind, value: x.value, key: x.key, for_name: x.for_name })),
    generated_at: d.generated_at,
  };
}

function conversationSummary(s: ConversationSummary | null): ConversationSummaryDto | null {
  if (!s) return null;
  return {
    covers: [...s.covers],
    conversation_status: s.conversation_status,
    staff_name: s.staff_name,
    summary: s.summary,
    outcome: s.outcome,
    key_points: [...s.key_points],
    confirmed_details: s.confirmed_details.map((c) => ({ label: c.label, value: c.value, said_by: c.said_by })),
    next_steps: [...s.next_steps],
    generated_at: s.generated_at,
  };
}

function handlingDto(h: CallHandling | null): HandlingDto | null {
  if (!h) return null;
  return {
    trace_version: h.trace_version,
    config_version: h.config_version,
    transfer_tool_fired: h.transfer_tool_fired,
    fires: h.fires,
    business_hours: h.business_hours,
    category: h.category,
    rule: h.rule,
    eligible: h.eligible,
    ineligible_reason: h.ineligible_reason,
    requested_person: h.requested_person,
    requested_person_name: h.requested_person_name,
    gate: h.gate,
    chain: h.chain === null ? null : [...h.chain],
    rung: h.rung === null ? null : h.rung.map((r) => ({ name: r.name, outcome: r.outcome })),
    connected: h.connected,
    transfer_reason: h.transfer_reason,
  };
}
