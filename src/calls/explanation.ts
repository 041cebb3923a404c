import type { CallHandling } from './call-model.js';

const INELIGIBLE: Record<string, string> = {
  no_rule: 'no transfer rule covers this kind of call',
  closed: 'the office was closed and the rule does not transfer after hours',
  no_chain: 'the rule names nobody to ring',
};

const GATES: Record<string, string> = {
  confirm_name: 'the caller did not confirm the name of the person asked for',
  ambiguous_name: 'the name the caller asked for matched more than one person',
  missing_reason: 'the caller did not give a reason for the call',
};

const RUNG: Record<string, string> = {
  connected: 'picked up',
  no_answer: 'did not answer',
  voicemail: 'went to voicemail',
  declined: 'answered and asked for a message instead',
  caller_gone: 'was being rung when the caller hung up',
  attorney_dropped: 'line ended before connecting',
  error: 'could not be called',
};

const TRANSFER_REASONS: Record<string, string> = {
  empty_chain: 'nobody was left to ring',
  no_trunk: 'no outgoing line was available',
  caller_gone: 'the caller hung up while on hold',
  attorney_dropped: "the staff member's line ended before connecting",
  declined: 'the staff member asked for a message instead',
  chain_exhausted: 'everyone in the chain was tried without success',
};

const REQUESTED: Record<string, (name: string | null) => string> = {
  none: () => 'The caller did not ask for anyone by name.',
  exact: (name) => `The caller asked for ${name ?? 'a team member'} by name.`,
  confirm: (name) => `The caller asked for someone who was taken to be ${name ?? 'a team member'}, pending confirmation.`,
  ambiguous: () => 'The caller asked for a name that matched more than one team member.',
  unknown: () => 'The caller asked for someone who is not on the team.',
};

/** Words from the record itself (never free text) with underscores turned into spaces. */
const words = (code: string) => code.replace(/_/g, ' ');

/**
 * Plain sentences templated from the routing record: who was rung and what
 * happened. Never AI text; values the templates do not know are quoted as
 * they are. Empty when there is no routing record.
 */
export function explainHandling(h: CallHandling | null): string[] {
  if (!h) return [];
  const out: string[] = [];
  if (h.business_hours !== null) out.push(h.business_hours ? 'The office was open.' : 'The office was closed.');
  if (!h.transfer_tool_fired) {
    out.push('The receptionist did not try to transfer the call.');
    return out;
  }
  out.push(h.fires > 1 ? `The receptionist reached the transfer step ${h.fires} times.` : 'The receptionist reached the transfer step.');
  if (h.category) out.push(`The call was routed as ${words(h.category)}.`);
  if (h.rule) out.push(h.rule === 'other' ? 'The catch-all transfer rule applied.' : `The transfer rule for ${words(h.rule)} applied.`);
  if (h.requested_person) {
    const known = REQUESTED[h.requested_person];
    out.push(known ? known(h.requested_person_name) : `The request for a specific person was recorded as "${h.requested_person}".`);
  }
  if (h.eligible === false) {
    const reason = h.ineligible_reason
      ? (INELIGIBLE[h.ineligible_reason] ?? `the reason recorded was "${h.ineligible_reason}"`)
      : 'no reason was recorded';
    out.push(`A live transfer was not allowed: ${reason}.`);
  } else if (h.eligible === true) {
    out.push('A live transfer was allowed.');
    if (h.gate) out.push(`The transfer stopped before ringing anyone because ${GATES[h.gate] ?? `of "${h.gate}"`}.`);
    if (h.chain && h.chain.length === 0) out.push('The rule names nobody who is still on the team.');
    else if (h.chain && h.chain.length > 0) out.push(`The receptionist was to ring ${h.chain.join(', then ')}.`);
  }
  if (h.rung && h.rung.length === 0) out.push('A transfer began but nobody was rung.');
  for (const r of h.rung ?? []) {
    out.push(`${r.name} ${RUNG[r.outcome] ?? `was rung (outcome "${r.outcome}")`}.`);
  }
  if (h.connected === true) {
    const to = h.rung?.find((r) => r.outcome === 'connected')?.name;
    out.push(to ? `The caller was put through to ${to}.` : 'The caller was put through.');
  } else if (h.connected === false) {
    out.push('The caller was not put through.');
  }
  if (h.transfer_reason) {
    out.push(`The transfer ended because ${TRANSFER_REASONS[h.transfer_reason] ?? `of "${h.transfer_reason}"`}.`);
  }
  return out;
}
