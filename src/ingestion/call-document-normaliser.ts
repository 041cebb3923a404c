import { referenceKey, type CallHandling, type CallUntrusted, type ConversationSummary, type IngestedCall } from '../calls/index.js';
import { normalizePhone } from '../common/phone.js';
import { INTAKE_FIELDS, type LeadFromCall } from '../leads/index.js';
import type { CallDocument, LeadDoc } from './dto/call-document.dto.js';

/*
 * A validated call document turned into what each context stores: members
 * copied one by one (nothing the pipeline adds passes unnoticed), absent ones
 * as null, phone numbers normalised, reference keys computed.
 */

/**
 * One problem per path and message, worded after the path ("about: holds at
 * most 8 items", not "about: about holds at most 8 items").
 */
export function tidy(problems: { path: string; message: string }[]): { path: string; message: string }[] {
  const seen = new Set<string>();
  return problems
    .map(({ path, message }) => {
      const last =
        path
          .replace(/\[\d+\]$/, '')
          .split('.')
          .pop() ?? '';
      return { path, message: last && message.startsWith(`${last} `) ? message.slice(last.length + 1) : message };
    })
    .filter((p) => !seen.has(`${p.path}\u0000${p.message}`) && seen.add(`${p.path}\u0000${p.message}`));
}

/** The call's own fields. */
export function ingestedCall(doc: CallDocument, callId: string): IngestedCall {
  const summary = doc.untrusted?.conversation_summary ?? null;
  const callbackNumber = normalizePhone(doc.callback_number) ? doc.callback_number : null;
  return {
    callId,
    startedAt: new Date(doc.started_at),
    durationS: doc.duration_s ?? null,
    answered: doc.answered ?? null,
    category: doc.category ?? null,
    urgency: doc.urgency ?? null,
    language: doc.language ?? null,
    // "A call with answered false has outcome not_attempted": the spec decides what the pipeline left open.
    outcome: doc.outcome ?? (doc.answered === false ? 'not_attempted' : null),
    fromE164: normalizePhone(doc.from),
    callbackNumber,
    callbackExtension: callbackNumber === null ? null : (doc.callback_extension ?? null),
    processingComplete: doc.processing_complete,
    configVersion: doc.config_version ?? null,
    untrusted: untrusted(doc),
    conversationSummary: summary ? conversationSummary(summary) : null,
    handling: doc.handling ? handling(doc.handling) : null,
  };
}

function untrusted(doc: CallDocument): CallUntrusted {
  const u = doc.untrusted;
  const d = u?.details ?? null;
  return {
    summary: { reason: u?.summary?.reason ?? null, message: u?.summary?.message ?? null },
    caller_name: u?.caller_name ?? null,
    details: d
      ? {
          about: d.about.map((a) => ({ name: a.name, relation: a.relation })),
          caller_organization: d.caller_organization ?? null,
          asked_for: d.asked_for ?? null,
          message_for: d.message_for ?? null,
          best_time: d.best_time ?? null,
          references: d.references.map((r) => ({
            kind: r.kind,
            value: r.value,
            key: referenceKey(r.value),
            for_name: r.for_name ?? null,
          })),
          generated_at: d.generated_at,
        }
      : null,
  };
}

function conversationSummary(s: NonNullable<CallDocument['untrusted']['conversation_summary']>): ConversationSummary {
  return {
    covers: [...s.covers],
    conversation_status: s.conversation_status ?? null,
    staff_name: s.staff_name ?? null,
    summary: s.summary ?? null,
    outcome: s.outcome ?? '',
    key_points: [...s.key_points],
    confirmed_details: s.confirmed_details.map((c) => ({ label: c.label, value: c.value, said_by: c.said_by })),
    next_steps: [...s.next_steps],
    generated_at: s.generated_at,
  };
}

function handling(h: NonNullable<CallDocument['handling']>): CallHandling {
  return {
    trace_version: h.trace_version,
    config_version: h.config_version ?? null,
    transfer_tool_fired: h.transfer_tool_fired,
    fires: h.fires,
    business_hours: h.business_hours ?? null,
    category: h.category ?? null,
    rule: h.rule ?? null,
    eligible: h.eligible ?? null,
    ineligible_reason: h.ineligible_reason ?? null,
    requested_person: h.requested_person ?? null,
    requested_person_name: h.requested_person_name ?? null,
    gate: h.gate ?? null,
    chain: h.chain ? [...h.chain] : null,
    rung: h.rung ? h.rung.map((r) => ({ name: r.name, outcome: r.outcome })) : null,
    connected: h.connected ?? null,
    transfer_reason: h.transfer_reason ?? null,
  };
}

/** The call's lead, as the leads context stores it. */
export function leadFromCall(l: LeadDoc, call: IngestedCall): LeadFromCall {
  const intakeUntrusted: Record<string, string | boolean | null> = {};
  const iu = (l.intake?.untrusted ?? {}) as unknown as Record<string, string | boolean | null | undefined>;
  for (const f of INTAKE_FIELDS.strings) intakeUntrusted[f] = iu[f] ?? null;
  for (const f of INTAKE_FIELDS.booleans) intakeUntrusted[f] = iu[f] ?? null;
  const phone = l.phone ?? null;
  return {
    callId: call.callId,
    capturedAt: call.startedAt,
    category: call.category,
    urgency: call.urgency,
    language: call.language,
    phone,
    phoneE164: normalizePhone(phone),
    phoneExtension: phone === null ? null : (l.phone_extension ?? null),
    email: l.email ?? null,
    intakeCompleteness: l.intake_completeness ?? null,
    untrustedName: l.untrusted?.name ?? null,
    untrustedIncidentDate: l.untrusted?.incident_date ?? null,
    intake: l.intake
      ? { extracted_at: l.intake.extracted_at ?? null, completeness: l.intake.completeness ?? null, untrusted: intakeUntrusted }
      : null,
  };
}
