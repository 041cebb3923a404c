import { runCli } from './support/cli';
import { fullCallDocument, ingestOk, internalEnv, nextCallId, putCall, unansweredCallDocument } from './support/call-documents';
import { TableChecksummer, changedTables, waitForQuiet } from './support/db-checksum';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

type Doc = Record<string, any>;

/** A call with no transfer: the routing record reached nothing, nobody was briefed or put through. */
function untransferredDocument(): Doc {
  const doc = fullCallDocument({ outcome: 'not_attempted' });
  doc.handling = { trace_version: 2, config_version: 3, transfer_tool_fired: false, fires: 0, business_hours: true };
  doc.untrusted.conversation_summary = null;
  doc.transcript = {
    conversation_status: null,
    connected_name: null,
    briefings: [],
    notice: null,
    turns: doc.transcript.turns.slice(0, 4),
  };
  return doc;
}

/** [what, the document, the member the 400 names] */
const CASES: [string, () => Doc, string][] = [
  ['an unanswered call with outcome connected', () => unansweredCallDocument({ outcome: 'connected' }), 'outcome'],
  ['an unanswered call with outcome declined', () => unansweredCallDocument({ outcome: 'declined' }), 'outcome'],
  ['an unanswered call with outcome no_answer', () => unansweredCallDocument({ outcome: 'no_answer' }), 'outcome'],
  ['an unanswered call with a lead', () => unansweredCallDocument({ lead: fullCallDocument().lead }), 'lead'],
  [
    'an unanswered call with a conversation summary',
    () => unansweredCallDocument({ untrusted: { conversation_summary: fullCallDocument().untrusted.conversation_summary } }),
    'untrusted.conversation_summary',
  ],
  ...(
    [
      ['category', 'new_injury_lead'],
      ['rule', 'other'],
      ['eligible', false],
      ['ineligible_reason', 'closed'],
      ['requested_person', 'none'],
      ['requested_person_name', 'Dana Harper'],
      ['gate', 'confirm_name'],
      ['chain', []],
      ['rung', []],
      ['connected', false],
      ['transfer_reason', 'empty_chain'],
    ] as const
  ).map(([field, value]): [string, () => Doc, string] => [
    `handling.${field} set when transfer_tool_fired is false`,
    () => {
      const doc = untransferredDocument();
      doc.handling[field] = value;
      return doc;
    },
    `handling.${field}`,
  ]),
  [
    'transfer_tool_fired false with fires 1',
    () => {
      const doc = untransferredDocument();
      doc.handling.fires = 1;
      return doc;
    },
    'handling.fires',
  ],
  [
    'transfer_tool_fired true with fires 0',
    () => fullCallDocument({ handling: { ...fullCallDocument().handling, fires: 0 } }),
    'handling.fires',
  ],
  [
    'an ineligible_reason on an eligible transfer',
    () => fullCallDocument({ handling: { ...fullCallDocument().handling, ineligible_reason: 'closed' } }),
    'handling.ineligible_reason',
  ],
  [
    'a gate on a transfer that was not allowed',
    () =>
      fullCallDocument({
        handling: { ...fullCallDocument().handling, eligible: false, ineligible_reason: 'closed', gate: 'confirm_name' },
      }),
    'handling.gate',
  ],
  [
    'a requested_person_name when requested_person is none',
    () => fullCallDocument({ handling: { ...fullCallDocument().handling, requested_person: 'none' } }),
    'handling.requested_person_name',
  ],
  [
    'lead.phone that is not a phone number',
    () => fullCallDocument({ lead: { ...fullCallDocument().lead, phone: 'call me maybe' } }),
    'lead.phone',
  ],
  ['lead.phone with too few digits', () => fullCallDocument({ lead: { ...fullCallDocument().lead, phone: '555-0100' } }), 'lead.phone'],
  [
    'lead.email that is not an address',
    () => fullCallDocument({ lead: { ...fullCallDocument().lead, email: 'jordan at example' } }),
    'lead.email',
  ],
  [
    'lead.email with an empty domain label',
    () => fullCallDocument({ lead: { ...fullCallDocument().lead, email: 'jordan@example..com' } }),
    'lead.email',
  ],
  ['lead.email without a domain', () => fullCallDocument({ lead: { ...fullCallDocument().lead, email: 'jordan@' } }), 'lead.email'],
  [
    'lead.phone_extension without lead.phone',
    () => fullCallDocument({ lead: { ...fullCallDocument().lead, phone: null } }),
    'lead.phone_extension',
  ],
  ['callback_extension without callback_number', () => fullCallDocument({ callback_number: null }), 'callback_extension'],
  [
    'a reference for a name that is not in about',
    () => {
      const doc = fullCallDocument();
      doc.untrusted.details.references[0].for_name = 'Somebody Else';
      return doc;
    },
    'untrusted.details.references[0].for_name',
  ],
  [
    'a staff turn in the intake',
    () => {
      const doc = fullCallDocument();
      Object.assign(doc.transcript.turns[1], { speaker: 'staff', speaker_name: 'Maya Chen' });
      return doc;
    },
    'transcript.turns[1].speaker',
  ],
  [
    'a caller turn in a briefing',
    () => {
      const doc = fullCallDocument();
      doc.transcript.turns[4].speaker = 'caller';
      return doc;
    },
    'transcript.turns[4].speaker',
  ],
  [
    'a receptionist turn in the conversation',
    () => {
      const doc = fullCallDocument();
      Object.assign(doc.transcript.turns[7], { speaker: 'receptionist' });
      return doc;
    },
    'transcript.turns[7].speaker',
  ],
  [
    'conversation turns when no staff conversation was recorded',
    () => {
      const doc = fullCallDocument();
      doc.transcript.conversation_status = null;
      return doc;
    },
    'transcript.turns[6].segment',
  ],
  [
    'briefing turns when full call records are off',
    () => {
      const doc = fullCallDocument();
      doc.transcript.conversation_status = 'not_enabled';
      doc.transcript.turns = doc.transcript.turns.slice(0, 6);
      return doc;
    },
    'transcript.turns[4].segment',
  ],
  ['a lead_id, which the service derives', () => fullCallDocument({ lead_id: 'lead_x' }), 'lead_id'],
  ['a lead_captured, which the service derives', () => fullCallDocument({ lead_captured: true }), 'lead_captured'],
  ['a transcript_covers, which the service derives', () => fullCallDocument({ transcript_covers: ['intake'] }), 'transcript_covers'],
];

describe('ingestion: the spec cross-field rules, refused with the member named and nothing written', () => {
  let t: TestApp;
  let firm: TestFirm;
  let checksums: TableChecksummer;

  beforeAll(async () => {
    t = await startTestApp({ env: internalEnv });
    firm = await createFirm(t.app);
    checksums = await TableChecksummer.open(t.databaseUrl);
  });
  afterAll(async () => {
    await checksums.close();
    await t.close();
  });

  it('accepts the valid starting points of the table', async () => {
    await ingestOk(t, firm.orgId, nextCallId(), untransferredDocument());
    await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument());
    await ingestOk(t, firm.orgId, nextCallId(), unansweredCallDocument());
  });

  it.each(CASES)('refuses %s', async (_what, make, param) => {
    await waitForQuiet(t);
    const before = await checksums.take();
    const r = await putCall(t, firm.orgId, nextCallId(), make());
    expect({ status: r.status, code: r.body.code, param: r.body.param }).toEqual({ status: 400, code: 'invalid_request', param });
    expect(r.body.detail).toContain(param);
    expect(changedTables(before, await checksums.take())).toEqual([]);
  });

  it('refuses the same documents on the CLI, naming the member, writing nothing', async () => {
    // The first six rules, then a transcript that is an array (it used to reach the transcript code and throw).
    const docs = [...CASES.slice(0, 6).map(([, make]) => make()), fullCallDocument({ transcript: [] })];
    await waitForQuiet(t);
    const before = await checksums.take();
    const r = await runCli(['call', 'ingest', '--org', firm.slug, '--file', '-', '--json'], {
      databaseUrl: t.databaseUrl,
      stdin: JSON.stringify(docs),
    });
    expect(r.code).toBe(1);
    for (const [i, [, , param]] of CASES.slice(0, 6).entries()) expect(r.json.error.message).toContain(`[${i}].${param}`);
    expect(r.json.error.message).toContain('[6].transcript: must be an object');
    expect(r.stderr).not.toMatch(/TypeError/);
    expect(changedTables(before, await checksums.take())).toEqual([]);
  });

  it('reads an unanswered call without an outcome as not_attempted: listed, and so in call.completed', async () => {
    const callId = nextCallId();
    await ingestOk(t, firm.orgId, callId, unansweredCallDocument({ outcome: null }));
    const list = await t.get(`/v1/calls?outcome=not_attempted&ids=${callId}`, { key: firm.keys.read });
    expect(list.status).toBe(200);
    expect(list.body.calls.map((c: Doc) => [c.call_id, c.outcome])).toEqual([[callId, 'not_attempted']]);
    const [event] = await t.sql(`SELECT data FROM events WHERE org_id = $1 AND type = 'call.completed' AND data->>'call_id' = $2`, [
      firm.orgId,
      callId,
    ]);
    expect(event.data.outcome).toBe('not_attempted');
  });
});
