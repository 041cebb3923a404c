import { maskPhone } from '../common/phone.js';
import type { CallDetails, CallHandling, CallUntrusted, ConversationSummary } from './call-model.js';
import type { CallDetailRow, CallListRow } from './calls.repository.js';
import type { CallDetailDto, CallDetailsDto, CallDto, CallUntrustedDto, ConversationSummaryDto, HandlingDto } from './dto/call.dto.js';
import { explainHandling } from './explanation.js';

/**
 * Rows to the spec's field lists, member by member: a new column or a stray
 * member in stored JSON can never reach a response by accident.
 */
export class CallMapper {
  constructor(private readonly dashboardUrl: string | null) {}

  item(r: CallListRow): CallDto {
    return {
      call_id: r.callId,
      started_at: r.startedAt ? r.startedAt.toISOString() : null,
      duration_s: r.durationS,
      answered: r.answered,
      category: r.category,
      urgency: r.urgency,
      language: r.language,
      outcome: r.outcome,
      lead_captured: r.leadId !== null,
      lead_id: r.leadId,
      from_masked: maskPhone(r.fromE164),
      from: r.fromE164,
      callback_number: r.callbackNumber,
      callback_extension: r.callbackNumber === null ? null : r.callbackExtension,
      updated_at: r.updatedAt ? r.updatedAt.toISOString() : null,
      processing_complete: r.processingComplete,
      dashboard_url: this.dashboardUrl ? `${this.dashboardUrl}/calls/${encodeURIComponent(r.callId)}` : null,
      has_recording: r.hasRecording,
      untrusted: untrusted(r.untrusted),
    };
  }

  detail(r: CallDetailRow): CallDetailDto {
    const base = this.item(r);
    const summary = conversationSummary(r.conversationSummary ?? null);
    const handling = handlingDto(r.handling ?? null);
    return {
      ...base,
      untrusted: base.untrusted === null ? null : { ...base.untrusted, conversation_summary: summary },
      handling,
      explanation: explainHandling(r.handling ?? null),
      config_version: r.configVersion ?? null,
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
