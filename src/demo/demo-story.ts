import { CARRIERS, COURTS, FIRST, INCIDENTS, LAST, PLACES, RELATIVES, type Category } from './demo-data.js';
import type { DemoRandom } from './demo-random.js';

export interface DemoStory {
  /** What happened, in the caller's terms (the lead's intake reuses it). */
  incident: string;
  injuries: string;
  treatment: string;
  place: string;
  relative: string | null;
  injuredName: string;
  reportNo: string;
  reason: string;
  message: string;
  organization: string | null;
  about: { name: string; relation: string }[];
  references: { kind: string; value: string; for_name: string | null }[];
}

type Facts = Omit<DemoStory, 'reason' | 'message' | 'organization' | 'about' | 'references'> & {
  caller: string;
  claim: string;
  caseNo: string;
};
type Told = Pick<DemoStory, 'reason' | 'message'> & Partial<Pick<DemoStory, 'organization' | 'about' | 'references'>>;

/** What each kind of caller says, drawn from the call's facts. */
const TELLERS: Record<Category, (f: Facts, rnd: DemoRandom) => Told> = {
  new_injury_lead: (f, rnd) => {
    const references: DemoStory['references'] = [];
    // for_name is an `about` name; a caller who was hurt themselves is not in `about`.
    const forName = f.relative ? f.injuredName : null;
    if (rnd.chance(0.5)) references.push({ kind: 'police_report_number', value: f.reportNo, for_name: forName });
    if (rnd.chance(0.3)) references.push({ kind: 'claim_number', value: f.claim.toLowerCase().replace('-', ' '), for_name: forName });
    return {
      reason: `${f.relative ? `Caller's ${f.relative} was` : 'Caller was'} ${f.incident} at ${f.place}.`,
      message: `Wants to speak with an attorney about ${f.injuries}.`,
      about: f.relative ? [{ name: f.injuredName, relation: 'injured_party' }] : [],
      references,
    };
  },
  existing_client: (f, rnd) => ({
    reason: 'Existing client asking for an update on their case.',
    message: rnd.pick([
      'Please call back with the status of the settlement.',
      'Has new medical bills to send over.',
      'Wants to reschedule the deposition prep.',
    ]),
    about: [{ name: f.caller, relation: 'client' }],
    references: [{ kind: 'case_number', value: f.caseNo, for_name: f.caller }],
  }),
  judge_court: (f, rnd) => ({
    reason: `Clerk from ${rnd.pick(COURTS)} about a hearing date.`,
    message: 'Hearing moved; please confirm availability.',
    organization: rnd.pick(COURTS),
    references: [{ kind: 'case_number', value: f.caseNo, for_name: null }],
  }),
  process_server: () => ({ reason: 'Process server trying to deliver documents.', message: 'Will come by the office tomorrow morning.' }),
  opposing_counsel: (f, rnd) => ({
    reason: 'Defense counsel calling about discovery deadlines.',
    message: 'Asks for a call back from the handling attorney.',
    organization: `${rnd.pick(LAST)} & ${rnd.pick(LAST)} LLP`,
    references: [{ kind: 'case_number', value: f.caseNo, for_name: null }],
    about: [{ name: `${rnd.pick(FIRST)} ${rnd.pick(LAST)}`, relation: 'adverse_party' }],
  }),
  referring_attorney: (f, rnd) => ({
    reason: 'Attorney referring a car-crash client.',
    message: `Referring ${f.injuredName}, who was ${f.incident}.`,
    organization: `${rnd.pick(LAST)} Law Group`,
    about: [{ name: f.injuredName, relation: 'client' }],
  }),
  insurance_adjuster: (f, rnd) => ({
    reason: `Adjuster from ${rnd.pick(CARRIERS)} about a claim.`,
    message: 'Needs the medical records authorization signed.',
    organization: rnd.pick(CARRIERS),
    references: [{ kind: 'claim_number', value: f.claim, for_name: f.injuredName }],
    about: [{ name: f.injuredName, relation: 'client' }],
  }),
  medical_provider: (f) => ({
    reason: 'Billing office of a clinic asking about a lien.',
    message: 'Please send the letter of protection.',
    organization: 'Northside Physical Therapy',
    about: [{ name: f.injuredName, relation: 'client' }],
  }),
  litigation_funding: () => ({
    reason: 'Pre-settlement funding company offering services.',
    message: 'Left a number for the office manager.',
    organization: 'Windy City Funding',
  }),
  out_of_practice: () => ({ reason: 'Caller needs help with a divorce.', message: 'Asked for a referral to a family law firm.' }),
  sales: () => ({
    reason: 'Marketing agency pitching legal ads.',
    message: 'Wants 15 minutes with the managing partner.',
    organization: 'LeadGenius',
  }),
  wrong_number: () => ({ reason: 'Caller was trying to reach a dentist.', message: 'No message.' }),
  other: () => ({ reason: 'Caller asked about the office address and parking.', message: 'Will stop by next week.' }),
};

/** What the call was about: the incident behind it, then the caller's reason and message. */
export function callStory(category: Category, caller: string, last: string, rnd: DemoRandom): DemoStory {
  const [incident, injuries, treatment] = rnd.pick(INCIDENTS);
  const place = rnd.pick(PLACES);
  const relative = rnd.chance(0.3) ? rnd.pick(RELATIVES) : null;
  const injuredName = relative ? `${rnd.pick(FIRST)} ${last}` : caller;
  const claim = `CLM-${100000 + rnd.int(899999)}`;
  const caseNo = `2026-L-${String(1000 + rnd.int(8999))}`;
  const reportNo = `JD${100000 + rnd.int(899999)}`;
  const facts: Facts = { incident, injuries, treatment, place, relative, injuredName, reportNo, caller, claim, caseNo };
  const told = TELLERS[category](facts, rnd);
  return {
    incident,
    injuries,
    treatment,
    place,
    relative,
    injuredName,
    reportNo,
    reason: told.reason,
    message: told.message,
    organization: told.organization ?? null,
    about: told.about ?? [],
    references: told.references ?? [],
  };
}
