import type { CallHandling } from './call-model';
import { explainHandling } from './explanation';

const trace = (over: Partial<CallHandling>): CallHandling => ({
  trace_version: 2,
  config_version: 3,
  transfer_tool_fired: true,
  fires: 1,
  business_hours: true,
  category: 'new_injury_lead',
  rule: 'new_injury_lead',
  eligible: true,
  ineligible_reason: null,
  requested_person: 'none',
  requested_person_name: null,
  gate: null,
  chain: ['Maya Chen', 'Dana Harper'],
  rung: [
    { name: 'Maya Chen', outcome: 'no_answer' },
    { name: 'Dana Harper', outcome: 'connected' },
  ],
  connected: true,
  transfer_reason: null,
  ...over,
});

describe('call explanation templates', () => {
  it('tells a transfer that connected, sentence by sentence', () => {
    expect(explainHandling(trace({}))).toEqual([
      'The office was open.',
      'The receptionist reached the transfer step.',
      'The call was routed as new injury lead.',
      'The transfer rule for new injury lead applied.',
      'The caller did not ask for anyone by name.',
      'A live transfer was allowed.',
      'The receptionist was to ring Maya Chen, then Dana Harper.',
      'Maya Chen did not answer.',
      'Dana Harper picked up.',
      'The caller was put through to Dana Harper.',
    ]);
  });

  it('is empty without a routing record, and stops early when no transfer was tried', () => {
    expect(explainHandling(null)).toEqual([]);
    expect(explainHandling(trace({ transfer_tool_fired: false, business_hours: false }))).toEqual([
      'The office was closed.',
      'The receptionist did not try to transfer the call.',
    ]);
  });

  it('explains refusals, gates and endings with the templates, and quotes codes it does not know', () => {
    expect(
      explainHandling(trace({ eligible: false, ineligible_reason: 'closed', chain: null, rung: null, connected: false, fires: 2 })),
    ).toEqual([
      'The office was open.',
      'The receptionist reached the transfer step 2 times.',
      'The call was routed as new injury lead.',
      'The transfer rule for new injury lead applied.',
      'The caller did not ask for anyone by name.',
      'A live transfer was not allowed: the office was closed and the rule does not transfer after hours.',
      'The caller was not put through.',
    ]);
    const odd = explainHandling(
      trace({
        rule: 'other',
        requested_person: 'exact',
        requested_person_name: 'Dana Harper',
        gate: 'mystery_gate',
        chain: [],
        rung: [],
        connected: null,
        transfer_reason: 'chain_exhausted',
      }),
    );
    expect(odd).toEqual([
      'The office was open.',
      'The receptionist reached the transfer step.',
      'The call was routed as new injury lead.',
      'The catch-all transfer rule applied.',
      'The caller asked for Dana Harper by name.',
      'A live transfer was allowed.',
      'The transfer stopped before ringing anyone because of "mystery_gate".',
      'The rule names nobody who is still on the team.',
      'A transfer began but nobody was rung.',
      'The transfer ended because everyone in the chain was tried without success.',
    ]);
    expect(explainHandling(trace({ rung: [{ name: 'Luis Ortega', outcome: 'teleported' }], connected: true }))).toContain(
      'Luis Ortega was rung (outcome "teleported").',
    );
  });
});
