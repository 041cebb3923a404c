import { simulatedCallDocument, type SimulatedCallPlan } from './simulated-call.js';

const plan = (over: Partial<SimulatedCallPlan> = {}): SimulatedCallPlan => ({
  callId: 'call_simulated_1',
  startedAt: null,
  now: new Date('2026-05-04T15:00:00Z'),
  answered: true,
  category: 'new_injury_lead',
  outcome: 'connected',
  lead: true,
  callerNumber: '+13125550142',
  processingComplete: true,
  ...over,
});

type Doc = Record<string, any>;
const segments = (doc: Doc) => new Set((doc.transcript.turns as { segment: string }[]).map((t) => t.segment));

describe('simulatedCallDocument', () => {
  it('tells the same call for the same id (a re-processing says the same), another for another id', () => {
    expect(simulatedCallDocument(plan())).toEqual(simulatedCallDocument(plan()));
    expect(simulatedCallDocument(plan({ callId: 'call_simulated_2' }))).not.toEqual(simulatedCallDocument(plan()));
  });

  it('with or without the lead, the rest of the call is unchanged', () => {
    const { lead: withLead, ...rest } = simulatedCallDocument(plan()) as Doc;
    const { lead: without, ...same } = simulatedCallDocument(plan({ lead: false })) as Doc;
    expect(withLead.intake.untrusted.caller_name).toEqual(expect.any(String));
    expect(without).toBeNull();
    expect(same).toEqual(rest);
  });

  it('put through: intake, briefing and conversation turns; the call just ended at now', () => {
    const doc = simulatedCallDocument(plan()) as Doc;
    expect(segments(doc)).toEqual(new Set(['intake', 'briefing', 'conversation']));
    expect(doc.transcript.briefings.length).toBeGreaterThan(0);
    expect(doc.outcome).toBe('connected');
    expect(new Date(doc.started_at).getTime() + doc.duration_s * 1000).toBe(plan().now.getTime());
    expect(doc.from).toBe('+13125550142');
  });

  it('not attempted: intake only, and the transfer tool never fired', () => {
    const doc = simulatedCallDocument(plan({ category: 'sales', outcome: 'not_attempted', lead: false })) as Doc;
    expect(segments(doc)).toEqual(new Set(['intake']));
    expect(doc.handling.transfer_tool_fired).toBe(false);
  });

  it('a category the firm does not route can still be put through (to the fallback person)', () => {
    const doc = simulatedCallDocument(plan({ category: 'wrong_number', outcome: 'declined', lead: false })) as Doc;
    expect(doc.handling.chain).toEqual(['Maya Chen']);
    expect(segments(doc)).toEqual(new Set(['intake', 'briefing']));
  });

  it('unanswered: no transcript, category or lead; a re-processing keeps the stored start', () => {
    const startedAt = new Date('2026-05-01T09:00:00Z');
    const doc = simulatedCallDocument(plan({ answered: false, category: null, outcome: 'not_attempted', lead: false, startedAt })) as Doc;
    expect(doc).toMatchObject({ answered: false, category: null, outcome: 'not_attempted', transcript: null, lead: null });
    expect(doc.started_at).toBe(startedAt.toISOString());
  });
});
