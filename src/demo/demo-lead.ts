import { CARRIERS, FIRST, LAST, type Category } from './demo-data.js';
import type { DemoRandom } from './demo-random.js';
import type { DemoStory } from './demo-story.js';

export interface DemoLeadPlan {
  callId: string;
  status: 'new' | 'contacted' | 'signed' | 'rejected';
  external_id: string | null;
  status_reason: string | null;
}

export interface LeadContext {
  category: Category;
  caller: string;
  first: string;
  last: string;
  callbackAsSaid: string;
  extension: string | null;
  incidentDate: string;
  generatedAt: string;
  completeness: number;
  story: DemoStory;
}

function intakeAnswers(c: LeadContext, email: string, rnd: DemoRandom): Record<string, string | boolean> {
  const s = c.story;
  return {
    caller_name: c.caller,
    caller_phone: c.callbackAsSaid,
    caller_email: email,
    referral_source:
      c.category === 'referring_attorney'
        ? 'Attorney referral'
        : rnd.pick(['Google search', 'A friend', 'Billboard on I-90', 'Past client']),
    relationship_to_injured: s.relative ?? 'self',
    incident_date: c.incidentDate,
    incident_location: s.place,
    incident_description: `${s.injuredName} was ${s.incident} at ${s.place}.`,
    fault_belief: 'The other driver was at fault.',
    injuries: s.injuries,
    treatment: s.treatment,
    police_report_number: s.reportNo,
    insurance_carrier: rnd.pick(CARRIERS),
    adverse_party_name: `${rnd.pick(FIRST)} ${rnd.pick(LAST)}`,
    narrative_summary: `${c.caller} called about ${s.relative ? `their ${s.relative}` : 'themselves'}: ${s.incident}, ${s.injuries}, ${s.treatment}.`,
    hospitalized: rnd.chance(0.3),
    surgery: rnd.chance(0.15),
    police_report_filed: rnd.chance(0.8),
    gave_recorded_statement: rnd.chance(0.2),
    commercial_vehicle_involved: rnd.chance(0.2),
    missed_work: rnd.chance(0.5),
    currently_represented: false,
    conflict_flag: false,
  };
}

/** The lead member of a call document, with the full intake the pipeline extracted. */
export function demoLead(c: LeadContext, rnd: DemoRandom): Record<string, unknown> {
  const email = `${c.first.toLowerCase()}.${c.last.toLowerCase()}@example.com`;
  return {
    phone: c.callbackAsSaid,
    phone_extension: c.extension,
    email,
    intake_completeness: c.completeness,
    untrusted: { name: c.story.injuredName, incident_date: c.incidentDate },
    intake: { extracted_at: c.generatedAt, completeness: c.completeness, untrusted: intakeAnswers(c, email, rnd) },
  };
}

/**
 * How the firm followed the lead up: leads of the last three days are still
 * new; older ones cycle through every status, signed ones with the firm's
 * own id, rejected ones with a reason.
 */
export function followUp(callId: string, k: number, recent: boolean, rnd: DemoRandom): DemoLeadPlan {
  const status = recent ? 'new' : (['new', 'contacted', 'contacted', 'signed', 'rejected'] as const)[k % 5];
  return {
    callId,
    status,
    external_id:
      status === 'signed' ? `HIL-2026-${String(100 + k).padStart(4, '0')}` : status === 'contacted' && k % 2 ? `CRM-${5000 + k}` : null,
    status_reason:
      status === 'rejected'
        ? rnd.pick(['Statute of limitations has run.', 'Already represented.', 'No injury.'])
        : status === 'signed'
          ? 'Retainer signed.'
          : null,
  };
}
