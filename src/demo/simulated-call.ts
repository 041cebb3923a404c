import { createHash } from 'node:crypto';
import { answeredDocument, unansweredDocument } from './demo-call-document.js';
import { DAY_MS } from './demo-calendar.js';
import { FIRST, LAST, URGENCY, type Category } from './demo-data.js';
import { demoLead } from './demo-lead.js';
import { DemoRandom } from './demo-random.js';
import { routeAs, type DemoOutcome } from './demo-routing.js';
import { callStory } from './demo-story.js';
import { demoTranscript } from './demo-transcript.js';

/** One call to simulate, as a test helper asks for it (test-helpers context); every choice is made. */
export interface SimulatedCallPlan {
  callId: string;
  /** The call's start; null: it has just ended, at `now`. A re-processing passes the stored start. */
  startedAt: Date | null;
  now: Date;
  answered: boolean;
  /** Null only on a call nobody answered (there was no conversation to categorise). */
  category: Category | null;
  outcome: DemoOutcome;
  lead: boolean;
  /** The caller id, E.164. */
  callerNumber: string;
  processingComplete: boolean;
}

/** The same call id draws the same caller, story and transcript, so a re-processing tells the same call again. */
const seedOf = (callId: string): number => createHash('sha256').update(callId).digest().readUInt32BE(0);

/** A US number the way a caller says it; any other number as written. */
const asSaid = (e164: string) => (/^\+1\d{10}$/.test(e164) ? `(${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}` : e164);

/**
 * The call document the receptionist pipeline would hand over for the plan,
 * built by the demo firm's generator: summary, details, routing trace,
 * transcript (intake; briefings and the staff conversation when someone
 * picked up) and, when asked, a lead with its intake. What the spec's rules
 * forbid (an unanswered call put through, or with a lead) is written as asked,
 * so ingestion's validation refuses it naming the member.
 */
export function simulatedCallDocument(plan: SimulatedCallPlan): Record<string, unknown> {
  const rnd = new DemoRandom(seedOf(plan.callId), 0);
  if (!plan.answered || plan.category === null) {
    const startedMs = plan.startedAt?.getTime() ?? plan.now.getTime() - 8_000;
    return {
      ...unansweredDocument(plan.callId, startedMs, plan.callerNumber, false, rnd),
      answered: plan.answered,
      outcome: plan.outcome,
      processing_complete: plan.processingComplete,
      lead: plan.lead ? { phone: plan.callerNumber } : null,
    };
  }
  return answered(plan, plan.category, rnd);
}

function answered(plan: SimulatedCallPlan, category: Category, rnd: DemoRandom): Record<string, unknown> {
  const first = rnd.pick(FIRST);
  const last = rnd.pick(LAST);
  const caller = `${first} ${last}`;
  const routing = routeAs(category, plan.outcome, rnd);
  const story = callStory(category, caller, last, rnd);
  const callbackAsSaid = asSaid(plan.callerNumber);
  const scene = { category, caller, first, callerNumberAsSaid: callbackAsSaid, spanish: false, untimed: false, ...story };
  const transcript = demoTranscript(scene, routing, rnd);
  const durationMs = Math.round(transcript.seconds + 10) * 1000;
  const startedMs = plan.startedAt?.getTime() ?? plan.now.getTime() - durationMs;
  const generatedAt = new Date(startedMs + durationMs).toISOString();
  // The lead draws from its own stream: a re-processing with or without the lead leaves the rest of the call unchanged.
  const leadRnd = new DemoRandom(seedOf(plan.callId), 1);
  const incidentDate = new Date(startedMs - (2 + leadRnd.int(20)) * DAY_MS).toISOString().slice(0, 10);
  const completeness = Math.round((0.6 + leadRnd.float() * 0.4) * 100) / 100;
  const leadContext = { category, caller, first, last, callbackAsSaid, extension: null, incidentDate, generatedAt, completeness, story };
  return answeredDocument(
    {
      ...{ callId: plan.callId, startedMs, afterHours: false, category, urgency: URGENCY[category], language: 'en' },
      ...{ from: plan.callerNumber, caller, callbackAsSaid, extension: null, oldCall: false, untraced: false, generatedAt },
      ...{ routing, story, transcript, lead: plan.lead ? demoLead(leadContext, leadRnd) : null },
      processingComplete: plan.processingComplete,
    },
    rnd,
  );
}
