import type { Category } from './demo-data.js';
import type { DemoRandom } from './demo-random.js';
import type { DemoRouting } from './demo-routing.js';
import type { DemoStory } from './demo-story.js';
import type { DemoTranscript } from './demo-transcript.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A caller who hung up before the receptionist spoke. */
export function unansweredDocument(callId: string, startedMs: number, from: string | null, afterHours: boolean, rnd: DemoRandom) {
  return {
    call_id: callId,
    started_at: iso(startedMs),
    duration_s: 2 + rnd.int(6),
    answered: false,
    category: null,
    urgency: null,
    language: null,
    outcome: 'not_attempted',
    from,
    callback_number: null,
    callback_extension: null,
    processing_complete: true,
    config_version: 4,
    untrusted: { summary: { reason: null, message: null }, caller_name: null, details: null, conversation_summary: null },
    handling: { trace_version: 2, config_version: 4, transfer_tool_fired: false, fires: 0, business_hours: !afterHours },
    transcript: null,
    lead: null,
  };
}

export interface AnsweredCall {
  callId: string;
  startedMs: number;
  afterHours: boolean;
  category: Category;
  urgency: string;
  language: string;
  from: string | null;
  caller: string;
  callbackAsSaid: string;
  extension: string | null;
  /** The last call of the history is still being processed. */
  processingComplete: boolean;
  /** From before the pipeline recorded details and timings (config version 3). */
  oldCall: boolean;
  /** From before the pipeline recorded its routing trace. */
  untraced: boolean;
  generatedAt: string;
  routing: DemoRouting;
  story: DemoStory;
  transcript: DemoTranscript;
  lead: Record<string, unknown> | null;
}

function transferReason(outcome: string): string | null {
  return outcome === 'no_answer' ? 'chain_exhausted' : outcome === 'declined' || outcome === 'caller_gone' ? outcome : null;
}

/** The routing trace: what the transfer tool did and why. */
function handling(c: AnsweredCall, askedByName: boolean) {
  const fired = !!c.routing.chain;
  const open = fired && !c.afterHours;
  return {
    trace_version: 2,
    config_version: c.oldCall ? 3 : 4,
    transfer_tool_fired: fired,
    fires: fired ? 1 : 0,
    business_hours: !c.afterHours,
    category: fired ? c.category : null,
    rule: fired ? c.category : null,
    eligible: fired ? !c.afterHours : null,
    ineligible_reason: fired && c.afterHours ? 'closed' : null,
    requested_person: fired ? (askedByName ? 'exact' : 'none') : null,
    requested_person_name: askedByName ? 'Dana Harper' : null,
    gate: null,
    chain: open ? c.routing.chain : null,
    rung: open ? c.routing.rung : null,
    connected: open ? c.routing.connectedTo !== null : null,
    transfer_reason: transferReason(c.routing.outcome),
  };
}

function details(c: AnsweredCall, rnd: DemoRandom) {
  const { outcome, chain } = c.routing;
  return {
    about: c.story.about.slice(0, 8),
    caller_organization: c.story.organization,
    asked_for: rnd.chance(0.2) ? rnd.pick(['Dana Harper', 'Maya', 'the lawyer']) : null,
    message_for: outcome === 'not_attempted' || outcome === 'no_answer' || outcome === 'declined' ? (chain?.[0] ?? 'Dana Harper') : null,
    best_time: rnd.chance(0.4) ? rnd.pick(['after 5pm', 'mornings', 'any time', 'lunch time']) : null,
    references: c.story.references.slice(0, 8),
    generated_at: c.generatedAt,
  };
}

function conversationSummary(c: AnsweredCall) {
  const staff = c.routing.connectedTo;
  if (!staff) return null;
  const injury = c.category === 'new_injury_lead';
  return {
    covers: ['intake', 'briefing', 'conversation'],
    conversation_status: c.transcript.partial ? 'partial' : 'complete',
    staff_name: staff,
    summary: `${staff} spoke with ${c.caller} about: ${c.story.reason}`,
    outcome: injury ? 'Consultation scheduled' : 'Request handled',
    key_points: [c.story.reason, c.story.message],
    confirmed_details: [
      { label: 'Callback number', value: c.callbackAsSaid, said_by: 'caller' },
      ...(injury ? [{ label: 'Consultation', value: 'Tomorrow 10:00', said_by: 'staff' as const }] : []),
    ],
    next_steps: injury ? ['Send intake packet', 'Request police report'] : ['Follow up by email'],
    generated_at: c.generatedAt,
  };
}

/** An answered call as the pipeline hands it over: summary, details, routing trace, transcript and lead. */
export function answeredDocument(c: AnsweredCall, rnd: DemoRandom) {
  const askedByName = !!c.routing.chain && rnd.chance(0.2);
  const callbackNumber = rnd.chance(0.85) ? c.callbackAsSaid : null;
  const conversationStatus = c.routing.connectedTo ? (c.transcript.partial ? 'partial' : 'complete') : null;
  return {
    call_id: c.callId,
    started_at: iso(c.startedMs),
    duration_s: Math.round(c.transcript.seconds + 10),
    answered: true,
    category: c.category,
    urgency: c.urgency,
    language: c.language,
    outcome: c.routing.outcome,
    from: c.from,
    callback_number: callbackNumber,
    callback_extension: callbackNumber === null ? null : c.extension,
    processing_complete: c.processingComplete,
    config_version: c.oldCall ? 3 : 4,
    untrusted: {
      summary: { reason: c.story.reason, message: c.story.message },
      caller_name: c.caller,
      details: c.oldCall ? null : details(c, rnd),
      conversation_summary: conversationSummary(c),
    },
    handling: c.untraced ? null : handling(c, askedByName),
    transcript: {
      conversation_status: conversationStatus,
      connected_name: c.routing.connectedTo,
      briefings: c.transcript.briefings,
      notice: c.transcript.partial ? 'Part of the staff conversation was not transcribed.' : null,
      turns: c.transcript.turns,
    },
    lead: c.lead,
  };
}
