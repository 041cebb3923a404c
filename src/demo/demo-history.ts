/**
 * A realistic, deterministic call history for the demo firm (Harper Injury
 * Law, Chicago): call documents exactly as the receptionist pipeline hands
 * them over, generated from a seeded PRNG so every seed gives the same
 * content; only the times follow "now" (the last 60 days, see demo-calendar).
 */

import { CATEGORIES } from '../calls/index.js';
import { answeredDocument, unansweredDocument } from './demo-call-document.js';
import { callSlot, DAY_MS, windowStart } from './demo-calendar.js';
import { FIRST, LAST, URGENCY, type Category } from './demo-data.js';
import { demoLead, followUp, type DemoLeadPlan } from './demo-lead.js';
import { DemoRandom } from './demo-random.js';
import { routeCall } from './demo-routing.js';
import { callStory } from './demo-story.js';
import { demoTranscript } from './demo-transcript.js';

export type { DemoLeadPlan } from './demo-lead.js';

export interface DemoHistory {
  documents: Record<string, unknown>[];
  leads: DemoLeadPlan[];
}

const phone = (k: number) => `+1${['312', '773', '872', '630'][k % 4]}5550${String(100 + (k % 100)).padStart(3, '0')}`;
const asSaid = (e164: string) => `(${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}`;
const languageOf = (i: number) => (i % 20 === 3 || i % 20 === 13 ? 'es' : i % 20 === 11 ? 'mixed' : i % 20 === 17 ? 'unknown' : 'en');

/** What stays the same from one call of the history to the next. */
class HistoryState {
  readonly documents: Record<string, unknown>[] = [];
  readonly leads: DemoLeadPlan[] = [];
  readonly repeatCallers: string[] = [];
  answeredSeen = 0;

  constructor(
    readonly now: Date,
    readonly start: number,
    readonly seed: number,
    readonly count: number,
  ) {}

  /** The first answered calls walk through every category, then the mix is weighted. */
  nextCategory(rnd: DemoRandom): Category {
    const category = this.answeredSeen < CATEGORIES.length ? CATEGORIES[this.answeredSeen] : rnd.category();
    this.answeredSeen++;
    return category;
  }

  /** Some callers call again. */
  callerNumber(i: number, rnd: DemoRandom): string {
    const e164 = rnd.chance(0.12) && this.repeatCallers.length ? rnd.pick(this.repeatCallers) : phone(i * 7 + 3);
    if (rnd.chance(0.2)) this.repeatCallers.push(e164);
    return e164;
  }
}

function isLead(category: Category, outcome: string, rnd: DemoRandom): boolean {
  const leadCategory = category === 'new_injury_lead' || (category === 'referring_attorney' && rnd.chance(0.5));
  return leadCategory && !(outcome === 'caller_gone' && rnd.chance(0.5));
}

function answeredCall(
  h: HistoryState,
  i: number,
  callId: string,
  startedMs: number,
  afterHours: boolean,
  callerE164: string,
  from: string | null,
  rnd: DemoRandom,
) {
  const category = h.nextCategory(rnd);
  const language = languageOf(i);
  const urgency = rnd.chance(0.15) ? rnd.pick(['high', 'normal', 'low'] as const) : URGENCY[category];
  const first = rnd.pick(FIRST);
  const last = rnd.pick(LAST);
  const caller = `${first} ${last}`;
  const routing = routeCall(category, language, afterHours, rnd);
  const oldCall = startedMs < h.start + 6 * DAY_MS;
  const story = callStory(category, caller, last, rnd);
  const scene = { category, caller, first, callerNumberAsSaid: asSaid(callerE164), spanish: language === 'es', untimed: oldCall, ...story };
  const transcript = demoTranscript(scene, routing, rnd);
  const lead = isLead(category, routing.outcome, rnd);
  const callbackAsSaid = asSaid(rnd.chance(0.2) ? phone(i * 13 + 5) : callerE164);
  const extension = rnd.chance(0.1) ? String(100 + rnd.int(900)) : null;
  const incidentDate = new Date(startedMs - (2 + rnd.int(20)) * DAY_MS).toISOString().slice(0, 10);
  const generatedAt = new Date(startedMs + 4 * 60_000).toISOString();
  const completeness = Math.round((0.6 + rnd.float() * 0.4) * 100) / 100;
  const leadContext = { category, caller, first, last, callbackAsSaid, extension, incidentDate, generatedAt, completeness, story };
  const leadDoc = lead ? demoLead(leadContext, rnd) : null;
  if (lead) h.leads.push(followUp(callId, h.leads.length, startedMs > h.now.getTime() - 3 * DAY_MS, rnd));
  return answeredDocument(
    {
      ...{ callId, startedMs, afterHours, category, urgency, language, from, caller, callbackAsSaid, extension, oldCall, generatedAt },
      ...{ routing, story, transcript, lead: leadDoc },
      processingComplete: i < h.count - 1,
      untraced: startedMs < h.start + 3 * DAY_MS,
    },
    rnd,
  );
}

/** ~3.7 calls a day over the last 60 days: 220 calls, each category, outcome, language and urgency present. */
export function demoHistory(now: Date, seed = 20260301, count = 220): DemoHistory {
  const h = new HistoryState(now, windowStart(now), seed, count);
  for (let i = 0; i < count; i++) {
    const rnd = new DemoRandom(seed, i);
    const { startedMs, afterHours } = callSlot(h.start, i, count, rnd);
    const callId = `call_${startedMs.toString(36)}${String(i).padStart(3, '0')}`;
    const callerE164 = h.callerNumber(i, rnd);
    const from = rnd.chance(0.03) ? null : callerE164;
    const answered = i % 12 !== 5;
    h.documents.push(
      answered
        ? answeredCall(h, i, callId, startedMs, afterHours, callerE164, from, rnd)
        : unansweredDocument(callId, startedMs, from, afterHours, rnd),
    );
  }
  return { documents: h.documents, leads: h.leads };
}
