import { CATEGORIES, OUTCOMES, type Category } from '../calls/index.js';
import { InvalidRequestError } from '../common/errors/problems.js';
import { normalizePhone } from '../common/phone.js';
import type { SimulatedCallPlan } from '../demo/index.js';
import type { Outcome, SimulateCallDto } from './dto/simulate-call.dto.js';

/** The categories whose calls usually yield a lead (as in the demo firm's history). */
const LEAD_CATEGORIES: ReadonlySet<Category> = new Set(['new_injury_lead', 'referring_attorney']);

/** A fictional Chicago number (555-0100 to 555-0199), the same for the same call id. */
export function fictionalNumber(callId: string): string {
  let n = 0;
  for (const ch of callId) n = (n * 31 + ch.charCodeAt(0)) % 100;
  return `+13125550${100 + n}`;
}

export const isCategory = (value: string | null): value is Category => CATEGORIES.includes(value as Category);
export const isOutcome = (value: string | null): value is Outcome => OUTCOMES.includes(value as Outcome);

/**
 * The defaults of POST /v1/test-helpers/calls filled in: an answered
 * new_injury_lead call put through, with a lead and a recording. The one
 * combination refused here is a category on an unanswered call; the others
 * the spec forbids (an unanswered call put through, or with a lead) are left
 * for ingestion's cross-field rules, which name the member.
 */
export function planSimulatedCall(body: SimulateCallDto, callId: string, now: Date): { plan: SimulatedCallPlan; recording: boolean } {
  const answered = body.answered ?? true;
  if (!answered && body.category !== undefined) {
    throw new InvalidRequestError(
      'category must be omitted when answered is false: a call nobody answered has no conversation to categorise.',
      'category',
    );
  }
  const category = answered ? (body.category ?? 'new_injury_lead') : null;
  const plan: SimulatedCallPlan = {
    callId,
    startedAt: null,
    now,
    answered,
    category,
    outcome: body.outcome ?? (answered ? 'connected' : 'not_attempted'),
    lead: body.lead ?? (category !== null && LEAD_CATEGORIES.has(category)),
    callerNumber: (body.caller_number !== undefined ? normalizePhone(body.caller_number) : null) ?? fictionalNumber(callId),
    processingComplete: true,
  };
  return { plan, recording: body.recording ?? answered };
}
