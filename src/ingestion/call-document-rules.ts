import type { CallDocument, HandlingDoc, TranscriptDoc } from './dto/call-document.dto.js';

/*
 * The spec's cross-field rules for a call document, each refused with the
 * member named (pure; the paths are relative to the document). Rules on one
 * member alone are the DTO's; the transcript's briefings and speaker names are
 * checked where it is prepared (TranscriptsService.prepare).
 */

export interface Problem {
  path: string;
  message: string;
}

/**
 * "When false, decision fields are null": every handling field but the
 * record's own (trace_version, config_version, transfer_tool_fired, fires) and
 * business_hours, which the spec defines for a call with no transfer decision
 * ("or at call start when none").
 */
export const DECISION_FIELDS = [
  'category',
  'rule',
  'eligible',
  'ineligible_reason',
  'requested_person',
  'requested_person_name',
  'gate',
  'chain',
  'rung',
  'connected',
  'transfer_reason',
] as const satisfies readonly (keyof HandlingDoc)[];

/** Who speaks in each part of a transcript (the spec's "Transcript parts"). */
const SPEAKERS_BY_SEGMENT: Record<string, readonly string[]> = {
  intake: ['caller', 'receptionist'],
  briefing: ['receptionist', 'staff'],
  conversation: ['caller', 'staff'],
};

/** requested_person values that name nobody in the settings ("Name in settings, for exact or confirm"). */
const NAMES_NOBODY = new Set(['none', 'ambiguous', 'unknown']);

export function crossFieldProblems(doc: CallDocument): Problem[] {
  return [...unansweredProblems(doc), ...callbackProblems(doc), ...summaryProblems(doc), ...handlingProblems(doc.handling)].concat(
    transcriptProblems(doc.transcript),
  );
}

/** "A call with answered false has outcome not_attempted"; only answered calls become leads or reach staff. */
function unansweredProblems(doc: CallDocument): Problem[] {
  if (doc.answered !== false) return [];
  const problems: Problem[] = [];
  if (doc.outcome !== null && doc.outcome !== 'not_attempted') {
    problems.push({ path: 'outcome', message: 'must be not_attempted (or null) when answered is false' });
  }
  if (doc.lead !== null) problems.push({ path: 'lead', message: 'must be null when answered is false: only answered calls yield leads' });
  if (doc.untrusted.conversation_summary !== null) {
    problems.push({ path: 'untrusted.conversation_summary', message: 'must be null when answered is false: nobody was briefed' });
  }
  return problems;
}

/** An extension is dialled after its number: none without one. */
function callbackProblems(doc: CallDocument): Problem[] {
  const problems: Problem[] = [];
  if (doc.callback_extension !== null && doc.callback_number === null) {
    problems.push({ path: 'callback_extension', message: 'must be null when callback_number is null' });
  }
  if (doc.lead && doc.lead.phone_extension !== null && doc.lead.phone === null) {
    problems.push({ path: 'lead.phone_extension', message: 'must be null when phone is null' });
  }
  return problems;
}

function summaryProblems(doc: CallDocument): Problem[] {
  const problems: Problem[] = [];
  const summary = doc.untrusted.conversation_summary;
  if (
    summary &&
    summary.summary === null &&
    (summary.outcome !== '' || summary.key_points.length || summary.confirmed_details.length || summary.next_steps.length)
  ) {
    problems.push({ path: 'untrusted.conversation_summary', message: 'outcome must be empty and the lists empty when summary is null' });
  }
  const details = doc.untrusted.details;
  if (details) {
    const about = new Set(details.about.map((a) => a.name));
    details.references.forEach((r, i) => {
      if (r.for_name !== null && !about.has(r.for_name)) {
        problems.push({ path: `untrusted.details.references[${i}].for_name`, message: 'must be the name of one of about, or null' });
      }
    });
  }
  return problems;
}

function handlingProblems(h: HandlingDoc | null): Problem[] {
  if (!h) return [];
  const problems: Problem[] = [];
  if (!h.transfer_tool_fired) {
    for (const field of DECISION_FIELDS) {
      if (h[field] !== null) problems.push({ path: `handling.${field}`, message: 'must be null when transfer_tool_fired is false' });
    }
  }
  if (h.transfer_tool_fired !== h.fires > 0) {
    problems.push({ path: 'handling.fires', message: 'must be 0 exactly when transfer_tool_fired is false' });
  }
  if (h.eligible === true && h.ineligible_reason !== null) {
    problems.push({ path: 'handling.ineligible_reason', message: 'must be null when eligible is true' });
  }
  if (h.gate !== null && h.eligible !== true) {
    problems.push({ path: 'handling.gate', message: 'is set only on an allowed transfer (eligible true)' });
  }
  if (h.requested_person_name !== null && (h.requested_person === null || NAMES_NOBODY.has(h.requested_person))) {
    problems.push({ path: 'handling.requested_person_name', message: 'is set only when requested_person is exact or confirm' });
  }
  return problems;
}

/** Each part has its own speakers; a status that says no staff conversation was recorded has no conversation turns. */
function transcriptProblems(t: TranscriptDoc | null): Problem[] {
  if (!t) return [];
  const problems: Problem[] = [];
  const noConversation = t.conversation_status === null || t.conversation_status === 'not_enabled';
  t.turns.forEach((turn, i) => {
    if (!SPEAKERS_BY_SEGMENT[turn.segment]?.includes(turn.speaker)) {
      problems.push({ path: `transcript.turns[${i}].speaker`, message: `cannot speak in the ${turn.segment} part` });
    } else if (turn.segment === 'conversation' && noConversation) {
      problems.push({
        path: `transcript.turns[${i}].segment`,
        message: 'cannot be conversation when conversation_status is null or not_enabled',
      });
    } else if (turn.segment === 'briefing' && t.conversation_status === 'not_enabled') {
      problems.push({ path: `transcript.turns[${i}].segment`, message: 'must be intake when conversation_status is not_enabled' });
    }
  });
  return problems;
}
