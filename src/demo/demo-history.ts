/**
 * A realistic, deterministic call history for the demo firm (Harper Injury
 * Law, Chicago): call documents exactly as the receptionist pipeline hands
 * them over, generated from a seeded PRNG so every seed gives the same
 * content; only the times are relative to "now" (the last 60 days).
 */

import { CATEGORIES } from '../calls/index.js';

type Category = (typeof CATEGORIES)[number];

/** How often each category calls a small PI practice. */
const WEIGHTS: Record<Category, number> = {
  new_injury_lead: 30,
  existing_client: 22,
  judge_court: 4,
  process_server: 3,
  opposing_counsel: 5,
  referring_attorney: 4,
  insurance_adjuster: 8,
  medical_provider: 6,
  litigation_funding: 2,
  out_of_practice: 4,
  sales: 5,
  wrong_number: 3,
  other: 4,
};

const TRANSFERS: Partial<Record<Category, string[]>> = {
  new_injury_lead: ['Maya Chen', 'Dana Harper'],
  existing_client: ['Maya Chen'],
  judge_court: ['Dana Harper'],
  opposing_counsel: ['Dana Harper'],
  referring_attorney: ['Dana Harper', 'Maya Chen'],
  insurance_adjuster: ['Maya Chen'],
  medical_provider: ['Maya Chen'],
  other: ['Maya Chen'],
};

const URGENCY: Record<Category, 'high' | 'normal' | 'low'> = {
  new_injury_lead: 'high',
  existing_client: 'normal',
  judge_court: 'high',
  process_server: 'normal',
  opposing_counsel: 'normal',
  referring_attorney: 'high',
  insurance_adjuster: 'normal',
  medical_provider: 'normal',
  litigation_funding: 'low',
  out_of_practice: 'low',
  sales: 'low',
  wrong_number: 'low',
  other: 'normal',
};

const FIRST = [
  'Jordan',
  'Maria',
  'Kevin',
  'Aisha',
  'Tom',
  'Lucia',
  'Derek',
  'Priya',
  'Marcus',
  'Elena',
  'Brian',
  'Rosa',
  'Tyrone',
  'Hannah',
  'Jorge',
  'Mei',
  'Patrick',
  'Fatima',
  'Greg',
  'Sofia',
];
const LAST = [
  'Reyes',
  'Kowalski',
  'Johnson',
  'Nguyen',
  'Okafor',
  'Garcia',
  'Schmidt',
  'Patel',
  'Brooks',
  'Romero',
  'Walsh',
  'Hernandez',
  'Kim',
  'Murphy',
  'Torres',
  'Lee',
];
const RELATIVES = ['wife', 'husband', 'son', 'daughter', 'mother', 'father', 'brother'];
const PLACES = [
  'I-90 near the Ohio St exit',
  'Western Ave and Belmont',
  'the Jewel on Clark St',
  'Lake Shore Drive by Fullerton',
  'a CTA bus on Ashland',
  'the parking garage at Water Tower',
  'I-55 near Pulaski',
];
const INCIDENTS = [
  ['rear-ended at a red light', 'neck and lower back pain', 'physical therapy twice a week'],
  ['hit by a driver turning left', 'broken wrist', 'cast and follow-up with orthopedics'],
  ['slipped on a wet floor with no sign', 'knee injury', 'MRI scheduled'],
  ['T-boned by a delivery truck', 'concussion and bruised ribs', 'ER visit, then primary care'],
  ['struck while riding a bike', 'fractured collarbone', 'surgery last week'],
  ['fell on a broken stair in a rental building', 'ankle sprain', 'urgent care and a brace'],
];
const CARRIERS = ['State Farm', 'Allstate', 'Progressive', 'GEICO', 'Country Financial', 'Travelers'];
const COURTS = ['Cook County Circuit Court', 'the Daley Center', 'DuPage County Circuit Court'];

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface DemoLeadPlan {
  callId: string;
  status: 'new' | 'contacted' | 'signed' | 'rejected';
  external_id: string | null;
  status_reason: string | null;
}

export interface DemoHistory {
  documents: Record<string, unknown>[];
  leads: DemoLeadPlan[];
}

const DAY = 86_400_000;

/** ~3.7 calls a day for 60 days: 220 calls, each category, outcome, language and urgency present. */
export function demoHistory(now: Date, seed = 20260301, count = 220): DemoHistory {
  // One stream per call (seed and index): a call's content never depends on what earlier calls drew.
  let rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const chance = (p: number) => rnd() < p;
  const weighted = (): Category => {
    let r = rnd() * Object.values(WEIGHTS).reduce((a, b) => a + b, 0);
    for (const c of CATEGORIES) {
      r -= WEIGHTS[c];
      if (r < 0) return c;
    }
    return 'other';
  };
  const phone = (k: number) => `+1${['312', '773', '872', '630'][k % 4]}5550${String(100 + (k % 100)).padStart(3, '0')}`;
  const asSaid = (e164: string) => `(${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}`;
  const iso = (ms: number) => new Date(ms).toISOString();

  // Midnight UTC 60 days ago: day d of the window runs from start + d days, so office hours land in office hours.
  const start = Math.floor((now.getTime() - 60 * DAY) / DAY) * DAY;
  const documents: Record<string, unknown>[] = [];
  const leads: DemoLeadPlan[] = [];
  let answeredSeen = 0;
  const repeatCallers: string[] = [];

  for (let i = 0; i < count; i++) {
    rnd = mulberry32((seed + Math.imul(i + 1, 0x9e3779b1)) >>> 0);
    // Spread over the window; most calls in office hours (Chicago, roughly 14:00-23:00 UTC).
    const day = Math.floor((i * 59.5) / count);
    // The office is open Monday to Friday; weekend calls are after hours whatever the time.
    const weekend = [0, 6].includes(new Date(start + day * DAY).getUTCDay());
    const afterHours = chance(0.18) || weekend;
    const hourUtc = afterHours ? 1 + Math.floor(rnd() * 11) : 14 + Math.floor(rnd() * 9);
    const startedMs = Math.min(
      start + day * DAY + hourUtc * 3_600_000 + Math.floor(rnd() * 60) * 60_000 + Math.floor(rnd() * 60) * 1000,
      now.getTime() - 10 * 60_000,
    );
    const callId = `call_${startedMs.toString(36)}${String(i).padStart(3, '0')}`;
    const answered = i % 12 !== 5;
    const callerE164 = chance(0.12) && repeatCallers.length ? pick(repeatCallers) : phone(i * 7 + 3);
    if (chance(0.2)) repeatCallers.push(callerE164);
    const fromWithheld = chance(0.03);

    if (!answered) {
      documents.push({
        call_id: callId,
        started_at: iso(startedMs),
        duration_s: 2 + Math.floor(rnd() * 6),
        answered: false,
        category: null,
        urgency: null,
        language: null,
        outcome: 'not_attempted',
        from: fromWithheld ? null : callerE164,
        callback_number: null,
        callback_extension: null,
        processing_complete: true,
        config_version: 4,
        untrusted: { summary: { reason: null, message: null }, caller_name: null, details: null, conversation_summary: null },
        handling: { trace_version: 2, config_version: 4, transfer_tool_fired: false, fires: 0, business_hours: !afterHours },
        transcript: null,
        lead: null,
      });
      continue;
    }

    // The first answered calls walk through every category, then the mix is weighted.
    const category: Category = answeredSeen < CATEGORIES.length ? CATEGORIES[answeredSeen] : weighted();
    answeredSeen++;
    const language = i % 20 === 3 || i % 20 === 13 ? 'es' : i % 20 === 11 ? 'mixed' : i % 20 === 17 ? 'unknown' : 'en';
    const urgency = chance(0.15) ? pick(['high', 'normal', 'low'] as const) : URGENCY[category];
    const first = pick(FIRST);
    const last = pick(LAST);
    const caller = `${first} ${last}`;
    const chainBase = TRANSFERS[category];
    const chain = chainBase ? (language === 'es' ? ['Luis Ortega'] : chainBase) : null;
    const canTransfer = !!chain && !afterHours;
    // Outcome: transfers in office hours for routed categories; a few transfer attempts end otherwise.
    let outcome: 'connected' | 'declined' | 'caller_gone' | 'no_answer' | 'not_attempted' = 'not_attempted';
    if (canTransfer) {
      const r = rnd();
      outcome = r < 0.55 ? 'connected' : r < 0.72 ? 'no_answer' : r < 0.86 ? 'declined' : 'caller_gone';
    }
    const rung: { name: string; outcome: string }[] = [];
    if (outcome !== 'not_attempted' && chain) {
      if (outcome === 'connected') {
        if (chain.length > 1 && chance(0.3)) rung.push({ name: chain[0], outcome: 'no_answer' }, { name: chain[1], outcome: 'connected' });
        else rung.push({ name: chain[0], outcome: 'connected' });
      } else if (outcome === 'no_answer') {
        for (const n of chain) rung.push({ name: n, outcome: chance(0.3) ? 'voicemail' : 'no_answer' });
      } else if (outcome === 'declined') {
        rung.push({ name: chain[0], outcome: 'declined' });
      } else {
        rung.push({ name: chain[0], outcome: 'caller_gone' });
      }
    }
    const connectedTo = rung.find((r) => r.outcome === 'connected')?.name ?? null;
    const briefed = rung.filter((r) => r.outcome === 'connected' || r.outcome === 'declined' || r.outcome === 'caller_gone');
    const oldCall = startedMs < start + 6 * DAY;

    // What the call was about.
    const [incident, injuries, treatment] = pick(INCIDENTS);
    const place = pick(PLACES);
    const relative = chance(0.3) ? pick(RELATIVES) : null;
    const injuredName = relative ? `${pick(FIRST)} ${last}` : caller;
    const claim = `CLM-${100000 + Math.floor(rnd() * 899999)}`;
    const caseNo = `2026-L-${String(1000 + Math.floor(rnd() * 8999))}`;
    const reportNo = `JD${100000 + Math.floor(rnd() * 899999)}`;
    const about: { name: string; relation: string }[] = [];
    const references: { kind: string; value: string; for_name: string | null }[] = [];
    let reason: string;
    let message: string;
    let organization: string | null = null;
    switch (category) {
      case 'new_injury_lead':
        reason = `${relative ? `Caller's ${relative} was` : 'Caller was'} ${incident} at ${place}.`;
        message = `Wants to speak with an attorney about ${injuries}.`;
        if (relative) about.push({ name: injuredName, relation: 'injured_party' });
        if (chance(0.5)) references.push({ kind: 'police_report_number', value: reportNo, for_name: injuredName });
        if (chance(0.3)) references.push({ kind: 'claim_number', value: claim.toLowerCase().replace('-', ' '), for_name: injuredName });
        break;
      case 'existing_client':
        reason = 'Existing client asking for an update on their case.';
        message = pick([
          'Please call back with the status of the settlement.',
          'Has new medical bills to send over.',
          'Wants to reschedule the deposition prep.',
        ]);
        about.push({ name: caller, relation: 'client' });
        references.push({ kind: 'case_number', value: caseNo, for_name: caller });
        break;
      case 'judge_court':
        reason = `Clerk from ${pick(COURTS)} about a hearing date.`;
        message = 'Hearing moved; please confirm availability.';
        organization = pick(COURTS);
        references.push({ kind: 'case_number', value: caseNo, for_name: null });
        break;
      case 'process_server':
        reason = 'Process server trying to deliver documents.';
        message = 'Will come by the office tomorrow morning.';
        break;
      case 'opposing_counsel':
        reason = 'Defense counsel calling about discovery deadlines.';
        message = 'Asks for a call back from the handling attorney.';
        organization = `${pick(LAST)} & ${pick(LAST)} LLP`;
        references.push({ kind: 'case_number', value: caseNo, for_name: null });
        about.push({ name: `${pick(FIRST)} ${pick(LAST)}`, relation: 'adverse_party' });
        break;
      case 'referring_attorney':
        reason = 'Attorney referring a car-crash client.';
        message = `Referring ${injuredName}, who was ${incident}.`;
        organization = `${pick(LAST)} Law Group`;
        about.push({ name: injuredName, relation: 'client' });
        break;
      case 'insurance_adjuster':
        reason = `Adjuster from ${pick(CARRIERS)} about a claim.`;
        message = 'Needs the medical records authorization signed.';
        organization = pick(CARRIERS);
        references.push({ kind: 'claim_number', value: claim, for_name: injuredName });
        about.push({ name: injuredName, relation: 'client' });
        break;
      case 'medical_provider':
        reason = 'Billing office of a clinic asking about a lien.';
        message = 'Please send the letter of protection.';
        organization = 'Northside Physical Therapy';
        about.push({ name: injuredName, relation: 'client' });
        break;
      case 'litigation_funding':
        reason = 'Pre-settlement funding company offering services.';
        message = 'Left a number for the office manager.';
        organization = 'Windy City Funding';
        break;
      case 'out_of_practice':
        reason = 'Caller needs help with a divorce.';
        message = 'Asked for a referral to a family law firm.';
        break;
      case 'sales':
        reason = 'Marketing agency pitching legal ads.';
        message = 'Wants 15 minutes with the managing partner.';
        organization = 'LeadGenius';
        break;
      case 'wrong_number':
        reason = 'Caller was trying to reach a dentist.';
        message = 'No message.';
        break;
      default:
        reason = 'Caller asked about the office address and parking.';
        message = 'Will stop by next week.';
    }

    // The transcript: intake, one briefing per person who picked up, the staff conversation.
    const turns: { speaker: string; speaker_name: string | null; segment: string; text: string; start_s: number | null }[] = [];
    let t = 0;
    const say = (speaker: string, segment: string, text: string, name: string | null = null) => {
      turns.push({ speaker, speaker_name: name, segment, text, start_s: oldCall ? null : Math.round(t * 10) / 10 });
      t += 3 + text.length / 14;
    };
    const spanish = language === 'es';
    say(
      'receptionist',
      'intake',
      spanish ? 'Harper Injury Law, habla Ava. ¿En qué le puedo ayudar?' : 'Harper Injury Law, this is Ava. How can I help?',
    );
    say('caller', 'intake', `${spanish ? 'Hola, me llamo' : 'Hi, my name is'} ${caller}. ${reason}`);
    say(
      'receptionist',
      'intake',
      spanish
        ? 'Lo siento mucho. ¿Cuál es el mejor número para devolverle la llamada?'
        : 'Thank you. What is the best number to call you back?',
    );
    say('caller', 'intake', asSaid(callerE164));
    if (category === 'new_injury_lead') {
      say('receptionist', 'intake', 'When did this happen, and were you hurt?');
      say('caller', 'intake', `It was ${Math.floor(rnd() * 20) + 1} days ago. I have ${injuries}.`);
    }
    say(
      'receptionist',
      'intake',
      outcome === 'not_attempted'
        ? 'I will pass your message to the team; someone will call you back.'
        : 'Please hold while I connect you.',
    );
    const briefings: { attempt: number; name: string; outcome: string; start_turn: number; turn_count: number }[] = [];
    briefed.forEach((r, k) => {
      const startTurn = turns.length;
      say('receptionist', 'briefing', `${r.name.split(' ')[0]}, I have ${caller} on the line: ${reason}`);
      if (r.outcome === 'declined') say('staff', 'briefing', 'I am in a meeting, please take a message.', r.name);
      else say('staff', 'briefing', 'Okay, put them through.', r.name);
      briefings.push({
        attempt: rung.indexOf(r) + 1 || k + 1,
        name: r.name,
        outcome: r.outcome,
        start_turn: startTurn,
        turn_count: turns.length - startTurn,
      });
    });
    const partial = connectedTo !== null && chance(0.1);
    if (connectedTo) {
      say('staff', 'conversation', `Hi ${first}, this is ${connectedTo.split(' ')[0]}. I understand ${reason.toLowerCase()}`, connectedTo);
      say('caller', 'conversation', message);
      say(
        'staff',
        'conversation',
        category === 'new_injury_lead' ? 'Let us set up a free consultation. Does tomorrow at 10 work?' : 'I will take care of that today.',
        connectedTo,
      );
      say('caller', 'conversation', 'Yes, thank you.');
    }
    const conversationStatus = connectedTo ? (partial ? 'partial' : 'complete') : null;

    // The lead: new injury calls that reached intake, and referrals.
    const isLead =
      (category === 'new_injury_lead' || (category === 'referring_attorney' && chance(0.5))) && !(outcome === 'caller_gone' && chance(0.5));
    const callbackE164 = chance(0.2) ? phone(i * 13 + 5) : callerE164;
    const extension = chance(0.1) ? String(100 + Math.floor(rnd() * 900)) : null;
    const incidentDate = iso(startedMs - (2 + Math.floor(rnd() * 20)) * DAY).slice(0, 10);
    const generatedAt = iso(startedMs + 4 * 60_000);
    const completeness = Math.round((0.6 + rnd() * 0.4) * 100) / 100;
    const lead = isLead
      ? {
          phone: asSaid(callbackE164),
          phone_extension: extension,
          email: `${first.toLowerCase()}.${last.toLowerCase()}@example.com`,
          intake_completeness: completeness,
          untrusted: { name: injuredName, incident_date: incidentDate },
          intake: {
            extracted_at: generatedAt,
            completeness,
            untrusted: {
              caller_name: caller,
              caller_phone: asSaid(callbackE164),
              caller_email: `${first.toLowerCase()}.${last.toLowerCase()}@example.com`,
              referral_source:
                category === 'referring_attorney'
                  ? 'Attorney referral'
                  : pick(['Google search', 'A friend', 'Billboard on I-90', 'Past client']),
              relationship_to_injured: relative ?? 'self',
              incident_date: incidentDate,
              incident_location: place,
              incident_description: `${injuredName} was ${incident} at ${place}.`,
              fault_belief: 'The other driver was at fault.',
              injuries,
              treatment,
              police_report_number: reportNo,
              insurance_carrier: pick(CARRIERS),
              adverse_party_name: `${pick(FIRST)} ${pick(LAST)}`,
              narrative_summary: `${caller} called about ${relative ? `their ${relative}` : 'themselves'}: ${incident}, ${injuries}, ${treatment}.`,
              hospitalized: chance(0.3),
              surgery: chance(0.15),
              police_report_filed: chance(0.8),
              gave_recorded_statement: chance(0.2),
              commercial_vehicle_involved: chance(0.2),
              missed_work: chance(0.5),
              currently_represented: false,
              conflict_flag: false,
            },
          },
        }
      : null;
    if (isLead) {
      const k = leads.length;
      const recent = startedMs > now.getTime() - 3 * DAY;
      const status = recent ? 'new' : (['new', 'contacted', 'contacted', 'signed', 'rejected'] as const)[k % 5];
      leads.push({
        callId,
        status,
        external_id:
          status === 'signed' ? `HIL-2026-${String(100 + k).padStart(4, '0')}` : status === 'contacted' && k % 2 ? `CRM-${5000 + k}` : null,
        status_reason:
          status === 'rejected'
            ? pick(['Statute of limitations has run.', 'Already represented.', 'No injury.'])
            : status === 'signed'
              ? 'Retainer signed.'
              : null,
      });
    }

    const fired = !!chain;
    const askedByName = fired && chance(0.2);
    documents.push({
      call_id: callId,
      started_at: iso(startedMs),
      duration_s: Math.round(t + 10),
      answered: true,
      category,
      urgency,
      language,
      outcome,
      from: fromWithheld ? null : callerE164,
      callback_number: chance(0.85) ? asSaid(callbackE164) : null,
      callback_extension: extension,
      processing_complete: i < count - 1,
      config_version: oldCall ? 3 : 4,
      untrusted: {
        summary: { reason, message },
        caller_name: caller,
        details: oldCall
          ? null
          : {
              about: about.slice(0, 8),
              caller_organization: organization,
              asked_for: chance(0.2) ? pick(['Dana Harper', 'Maya', 'the lawyer']) : null,
              message_for:
                outcome === 'not_attempted' || outcome === 'no_answer' || outcome === 'declined' ? (chain?.[0] ?? 'Dana Harper') : null,
              best_time: chance(0.4) ? pick(['after 5pm', 'mornings', 'any time', 'lunch time']) : null,
              references: references.slice(0, 8),
              generated_at: generatedAt,
            },
        conversation_summary: connectedTo
          ? {
              covers: ['intake', 'briefing', 'conversation'],
              conversation_status: conversationStatus,
              staff_name: connectedTo,
              summary: `${connectedTo} spoke with ${caller} about: ${reason}`,
              outcome: category === 'new_injury_lead' ? 'Consultation scheduled' : 'Request handled',
              key_points: [reason, message],
              confirmed_details: [
                { label: 'Callback number', value: asSaid(callbackE164), said_by: 'caller' },
                ...(category === 'new_injury_lead' ? [{ label: 'Consultation', value: 'Tomorrow 10:00', said_by: 'staff' as const }] : []),
              ],
              next_steps: category === 'new_injury_lead' ? ['Send intake packet', 'Request police report'] : ['Follow up by email'],
              generated_at: generatedAt,
            }
          : null,
      },
      handling:
        startedMs < start + 3 * DAY
          ? null
          : {
              trace_version: 2,
              config_version: oldCall ? 3 : 4,
              transfer_tool_fired: fired,
              fires: fired ? 1 : 0,
              business_hours: !afterHours,
              category: fired ? category : null,
              rule: fired ? (category === 'other' ? 'other' : category) : null,
              eligible: fired ? !afterHours : null,
              ineligible_reason: fired && afterHours ? 'closed' : null,
              requested_person: fired ? (askedByName ? 'exact' : 'none') : null,
              requested_person_name: askedByName ? 'Dana Harper' : null,
              gate: null,
              chain: fired ? (afterHours ? null : chain) : null,
              rung: fired && !afterHours ? rung : null,
              connected: fired && !afterHours ? connectedTo !== null : null,
              transfer_reason:
                outcome === 'no_answer'
                  ? 'chain_exhausted'
                  : outcome === 'declined'
                    ? 'declined'
                    : outcome === 'caller_gone'
                      ? 'caller_gone'
                      : null,
            },
      transcript: {
        conversation_status: conversationStatus,
        connected_name: connectedTo,
        briefings,
        notice: partial ? 'Part of the staff conversation was not transcribed.' : null,
        turns,
      },
      lead,
    });
  }
  return { documents, leads };
}
