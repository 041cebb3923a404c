import { CallsService } from '../../../src/calls';
import { Database } from '../../../src/database/sql';
import { IngestionService } from '../../../src/ingestion';
import { LeadsService } from '../../../src/leads';
import { fullCallDocument, nextCallId, unansweredCallDocument } from '../../support/call-documents';
import {
  CROSS_FIELD_CASES,
  getAt,
  MEMBERS,
  param,
  setAt,
  SHAPE_CASES,
  untransferredDocument,
  type Doc,
  type Step,
} from '../../support/call-document-cases';
import { changedTables, TableChecksummer } from '../../support/db-checksum';
import { createFirm, type TestFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';

/**
 * IngestionService (the pipeline's port: PUT /internal/v1/orgs/{org_id}/calls/{call_id}, `call ingest`, test
 * helpers) against the real database, without HTTP: what one call's transaction writes, re-processing, and the
 * documents it refuses with nothing written.
 */
let m: MediumService<IngestionService>;
let firm: TestFirm;
let checksums: TableChecksummer;

beforeAll(async () => {
  m = await newMediumService(IngestionService, { env: { DASHBOARD_URL: 'https://dash.test' } });
  firm = await createFirm(m.module);
  checksums = await TableChecksummer.open(m.databaseUrl);
});
afterAll(async () => {
  await checksums.close();
  await m.close();
});

const ingest = (callId: string, doc: unknown, orgId = firm.orgId) => m.sut.ingest(orgId, doc, callId, { livemode: true });
const events = async (orgId: string, type?: string) =>
  m.sql(
    `SELECT type, data::text AS data FROM events WHERE org_id = $1 ${type ? 'AND type = $2' : ''} ORDER BY seq`,
    type ? [orgId, type] : [orgId],
  );
const callEvents = async (callId: string, type?: string) =>
  (await events(firm.orgId, type)).filter((e) => JSON.parse(e.data).call_id === callId);

describe('IngestionService.ingest: a new call', () => {
  const callId = nextCallId();
  let answer: Awaited<ReturnType<IngestionService['ingest']>>;
  beforeAll(async () => {
    answer = await ingest(callId, fullCallDocument());
  });

  it('answers the call id, created, and the lead', () => {
    expect(answer).toEqual({
      call_id: callId,
      status: 'created',
      lead_id: expect.stringMatching(/^lead_/),
      lead_created: true,
      completed_event: true,
    });
  });

  it('stores the call with normalised numbers and reference keys, never a recording flag', async () => {
    const [c] = await m.sql('SELECT * FROM calls WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId]);
    expect(c).toMatchObject({
      from_e164: '+13125550123',
      callback_number: '312.555.0188',
      callback_extension: '42',
      lead_id: answer.lead_id,
      has_recording: false,
      processing_complete: true,
      livemode: true,
    });
    expect(c.untrusted.details.references.map((r: any) => r.key)).toEqual(['CLM77821B', 'RD20260042']);
    const refs = await m.sql('SELECT key FROM call_references WHERE org_id = $1 AND call_id = $2 ORDER BY key', [firm.orgId, callId]);
    expect(refs.map((r) => r.key)).toEqual(['CLM77821B', 'RD20260042']);
  });

  it('joins consecutive speech of one speaker in one part and re-points briefings', async () => {
    const [h] = await m.sql(
      'SELECT covers, briefings, turn_count, intake_count, briefing_count, conversation_count FROM transcripts WHERE org_id = $1 AND call_id = $2',
      [firm.orgId, callId],
    );
    expect(h).toEqual({
      covers: ['intake', 'briefing', 'conversation'],
      briefings: [{ attempt: 1, name: 'Maya Chen', outcome: 'connected', start_turn: 3, turn_count: 2 }],
      turn_count: 7,
      intake_count: 3,
      briefing_count: 2,
      conversation_count: 2,
    });
    const turns = await m.sql(
      'SELECT idx, seg_idx, speaker, text, start_s FROM transcript_turns WHERE org_id = $1 AND call_id = $2 ORDER BY idx',
      [firm.orgId, callId],
    );
    expect(turns[1]).toEqual({ idx: 1, seg_idx: 1, speaker: 'caller', text: 'Hi, I was in a crash. Yesterday on I-90.', start_s: 3.5 });
    expect(turns[3]).toMatchObject({ idx: 3, seg_idx: 0, speaker: 'receptionist' });
  });

  it('creates the lead with status new and records lead.created then call.completed, exactly shaped, in the same transaction', async () => {
    const [lead] = await m.sql(
      'SELECT status, phone, phone_e164, phone_extension, external_id, status_reason, status_updated_at FROM leads WHERE org_id = $1 AND lead_id = $2',
      [firm.orgId, answer.lead_id],
    );
    expect(lead).toEqual({
      status: 'new',
      phone: '(312) 555-0188',
      phone_e164: '+13125550188',
      phone_extension: '42',
      external_id: null,
      status_reason: null,
      status_updated_at: null,
    });
    const evts = await callEvents(callId);
    expect(evts.map((e) => e.type)).toEqual(['lead.created', 'call.completed']);
    // Member order is part of the contract (the json column keeps it).
    expect(evts[0].data).toBe(
      JSON.stringify({
        lead_id: answer.lead_id,
        call_id: callId,
        status: 'new',
        category: 'new_injury_lead',
        urgency: 'high',
        url: `http://api.test/v1/leads/${answer.lead_id}`,
      }),
    );
    expect(evts[1].data).toBe(
      JSON.stringify({
        call_id: callId,
        occurred_at: '2026-03-02T15:04:05.000Z',
        answered: true,
        duration_s: 312,
        category: 'new_injury_lead',
        urgency: 'high',
        outcome: 'connected',
        lead_id: answer.lead_id,
        has_recording: false,
        url: `http://api.test/v1/calls/${callId}`,
        dashboard_url: `https://dash.test/calls/${callId}`,
      }),
    );
    const [txids] = await m.sql(`SELECT count(DISTINCT e.txid)::int AS n FROM events e WHERE e.org_id = $1 AND e.data->>'call_id' = $2`, [
      firm.orgId,
      callId,
    ]);
    expect(txids.n).toBe(1);
  });

  it('marks the firm as having received its first call, once', async () => {
    const fresh = await createFirm(m.module);
    const firstCallAt = async () => (await m.sql('SELECT first_call_at FROM orgs WHERE id = $1', [fresh.orgId]))[0].first_call_at;
    expect(await firstCallAt()).toBeNull();
    await ingest(nextCallId(), fullCallDocument(), fresh.orgId);
    expect(await firstCallAt()).toEqual(new Date('2026-03-02T15:04:05.000Z'));
    await ingest(nextCallId(), fullCallDocument({ started_at: '2026-03-05T10:00:00.000Z' }), fresh.orgId);
    expect(await firstCallAt()).toEqual(new Date('2026-03-02T15:04:05.000Z'));
  });

  it('ingests an unanswered call with no transcript or lead', async () => {
    const id = nextCallId();
    expect(await ingest(id, unansweredCallDocument())).toEqual({
      call_id: id,
      status: 'created',
      lead_id: null,
      lead_created: false,
      completed_event: true,
    });
    expect(await m.sql('SELECT count(*)::int AS n FROM transcripts WHERE org_id = $1 AND call_id = $2', [firm.orgId, id])).toEqual([
      { n: 0 },
    ]);
  });

  it('an unknown firm is not found, and nothing is written', async () => {
    const before = await checksums.take();
    for (const orgId of ['6f1c1f7e-1d1a-4c4e-9a51-3c7b5e0b9a11', 'not-a-uuid']) {
      await expect(ingest(nextCallId(), fullCallDocument(), orgId)).rejects.toMatchObject({ code: 'not_found' });
    }
    expect(changedTables(before, await checksums.take())).toEqual([]);
  });
});

describe('IngestionService.ingest: re-processing', () => {
  it('replaces the call, keeps has_recording and the firm-owned lead fields, moves updated_at, emits nothing again', async () => {
    const callId = nextCallId();
    const first = await ingest(callId, fullCallDocument());
    // The recordings context's port.
    await m.module.get(Database).transaction((tx) => m.module.get(CallsService).setHasRecording(tx, firm.orgId, callId, true));
    const writer = await m.principal(firm.keys['read-update-leads']);
    await m.module.get(LeadsService).patch(writer, first.lead_id!, { status: 'signed', external_id: 'EXT-9', status_reason: 'Retained' });
    const [beforeCall] = await m.sql('SELECT updated_at FROM calls WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId]);
    const [beforeLead] = await m.sql('SELECT updated_at FROM leads WHERE lead_id = $1', [first.lead_id]);
    const eventsBefore = (await events(firm.orgId)).length;

    const doc = fullCallDocument({ urgency: 'normal', duration_s: 320 });
    doc.lead.email = 'new@example.com';
    doc.untrusted.details.references = [{ kind: 'case_number', value: '24-L-001', for_name: null }];
    expect(await ingest(callId, doc)).toEqual({
      call_id: callId,
      status: 'reprocessed',
      lead_id: first.lead_id,
      lead_created: false,
      completed_event: false,
    });

    const [c] = await m.sql('SELECT urgency, duration_s, has_recording, updated_at FROM calls WHERE org_id = $1 AND call_id = $2', [
      firm.orgId,
      callId,
    ]);
    expect(c).toMatchObject({ urgency: 'normal', duration_s: 320, has_recording: true });
    expect(c.updated_at.getTime()).toBeGreaterThan(beforeCall.updated_at.getTime());
    const [l] = await m.sql('SELECT status, external_id, status_reason, email, urgency, updated_at FROM leads WHERE lead_id = $1', [
      first.lead_id,
    ]);
    expect(l).toMatchObject({
      status: 'signed',
      external_id: 'EXT-9',
      status_reason: 'Retained',
      email: 'new@example.com',
      urgency: 'normal',
    });
    expect(l.updated_at.getTime()).toBeGreaterThan(beforeLead.updated_at.getTime());
    expect(await m.sql('SELECT key FROM call_references WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId])).toEqual([
      { key: '24L001' },
    ]);
    expect((await events(firm.orgId)).length).toBe(eventsBefore);
  });

  it('records call.completed once, when processing_complete first turns true', async () => {
    const callId = nextCallId();
    const pending = await ingest(callId, fullCallDocument({ processing_complete: false, lead: null }));
    expect(pending).toMatchObject({ status: 'created', completed_event: false, lead_id: null });
    expect(await callEvents(callId, 'call.completed')).toHaveLength(0);
    const done = await ingest(callId, fullCallDocument({ processing_complete: true }));
    expect(done).toMatchObject({ status: 'reprocessed', completed_event: true, lead_created: true });
    const [evt] = await callEvents(callId, 'call.completed');
    expect(JSON.parse(evt.data).lead_id).toBe(done.lead_id);
    await ingest(callId, fullCallDocument({ processing_complete: true }));
    expect(await callEvents(callId, 'call.completed')).toHaveLength(1);
  });

  it('without a lead: the call loses lead_id, the lead stays readable and comes back on a later re-processing', async () => {
    const callId = nextCallId();
    const first = await ingest(callId, fullCallDocument());
    const [beforeLead] = await m.sql('SELECT updated_at FROM leads WHERE lead_id = $1', [first.lead_id]);
    expect(await ingest(callId, fullCallDocument({ lead: null }))).toMatchObject({
      status: 'reprocessed',
      lead_id: null,
      lead_created: false,
    });
    const reader = await m.principal(firm.keys.read);
    expect((await m.module.get(CallsService).get(reader, callId)).call).toMatchObject({ lead_id: null, lead_captured: false });
    const [afterLead] = await m.sql('SELECT updated_at FROM leads WHERE lead_id = $1', [first.lead_id]);
    expect(afterLead.updated_at.getTime()).toBeGreaterThan(beforeLead.updated_at.getTime());
    expect((await m.module.get(LeadsService).get(reader, first.lead_id!)).lead.call_id).toBe(callId);

    expect(await ingest(callId, fullCallDocument())).toMatchObject({ lead_id: first.lead_id, lead_created: false });
    expect(await callEvents(callId, 'lead.created')).toHaveLength(1);
  });

  it('a call keeps its mode: a document in the other mode is refused naming call_id and changes nothing', async () => {
    const [live, test] = [nextCallId(), nextCallId()];
    await ingest(live, fullCallDocument());
    await m.sut.ingest(firm.orgId, fullCallDocument(), test, { livemode: false });
    const before = await checksums.take();
    await expect(m.sut.ingest(firm.orgId, fullCallDocument(), live, { livemode: false })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'call_id',
    });
    await expect(ingest(test, fullCallDocument())).rejects.toMatchObject({ code: 'invalid_request', param: 'call_id' });
    expect(changedTables(before, await checksums.take())).toEqual([]);
  });
});

describe('IngestionService.ingest: the whole document is validated, the member named, nothing written', () => {
  /** The refusal of `doc`, after checking that it wrote nothing anywhere. */
  const refusal = async (doc: unknown, callId = nextCallId()): Promise<{ code: string; param: string; message: string }> => {
    const before = await checksums.take();
    const refused = await ingest(callId, doc).then(
      () => ({ code: 'accepted', param: '', message: '' }),
      (e: { code: string; problems?: { path: string }[]; param?: string; message: string }) => ({
        code: e.code,
        param: e.problems?.[0]?.path ?? e.param ?? '',
        message: e.message,
      }),
    );
    expect(changedTables(before, await checksums.take())).toEqual([]);
    return refused;
  };
  const nine = <T>(item: T) => Array.from({ length: 9 }, () => item);
  const cases: [string, (d: Doc) => unknown, string][] = [
    ['nine about people', (d) => void (d.untrusted.details.about = nine({ name: 'A', relation: 'client' })), 'untrusted.details.about'],
    [
      'nine references',
      (d) => void (d.untrusted.details.references = nine({ kind: 'other', value: 'X1', for_name: null })),
      'untrusted.details.references',
    ],
    ['nine key points', (d) => void (d.untrusted.conversation_summary.key_points = nine('p')), 'untrusted.conversation_summary.key_points'],
    [
      'nine confirmed details',
      (d) => void (d.untrusted.conversation_summary.confirmed_details = nine({ label: 'a', value: 'b', said_by: 'caller' })),
      'untrusted.conversation_summary.confirmed_details',
    ],
    ['nine next steps', (d) => void (d.untrusted.conversation_summary.next_steps = nine('s')), 'untrusted.conversation_summary.next_steps'],
    ['an unknown category', (d) => void (d.category = 'bogus'), 'category'],
    ['a string for a boolean', (d) => void (d.answered = 'yes'), 'answered'],
    ['no started_at', (d) => void delete d.started_at, 'started_at'],
    ['a started_at without offset', (d) => void (d.started_at = '2026-03-02T15:04:05'), 'started_at'],
    ['a negative duration', (d) => void (d.duration_s = -1), 'duration_s'],
    ['an unknown member', (d) => void (d.colour = 'blue'), 'colour'],
    ['an unknown speaker', (d) => void (d.transcript.turns[0].speaker = 'robot'), 'transcript.turns[0].speaker'],
    ['a briefing beyond the turns', (d) => void (d.transcript.briefings[0].start_turn = 7), 'transcript.briefings[0]'],
    ['a briefing over intake turns', (d) => void (d.transcript.briefings[0].start_turn = 0), 'transcript.briefings[0]'],
    ['a body call_id that differs from the path', (d) => void (d.call_id = 'other'), 'call_id'],
    ['a non-boolean intake flag', (d) => void (d.lead.intake.untrusted.hospitalized = 'yes'), 'lead.intake.untrusted.hospitalized'],
    ['an unknown intake field', (d) => void (d.lead.intake.untrusted.shoe_size = '9'), 'lead.intake.untrusted.shoe_size'],
    ['a completeness above 1', (d) => void (d.lead.intake_completeness = 1.5), 'lead.intake_completeness'],
    ['a non-digit extension', (d) => void (d.callback_extension = 'x12'), 'callback_extension'],
    [
      'a summary-less summary with an outcome',
      (d) => void (d.untrusted.conversation_summary.summary = null),
      'untrusted.conversation_summary',
    ],
    ['handling without trace_version', (d) => void delete d.handling.trace_version, 'handling.trace_version'],
  ];

  it.each(cases)('refuses %s', async (_name, mutate, name) => {
    const doc = fullCallDocument();
    mutate(doc);
    const refused = await refusal(doc);
    expect(refused).toMatchObject({ code: 'invalid_request', param: name });
    expect(refused.message).toContain(name);
  });

  it('refuses a document that is not an object', async () => {
    expect(await refusal([fullCallDocument()])).toMatchObject({ code: 'invalid_request', param: '(document)' });
  });

  it('leaves an existing call untouched when its re-processing is invalid', async () => {
    const callId = nextCallId();
    await ingest(callId, fullCallDocument());
    expect(await refusal(fullCallDocument({ urgency: 'extreme' }), callId)).toMatchObject({ code: 'invalid_request', param: 'urgency' });
  });

  describe("the spec's cross-field rules", () => {
    it('accepts the valid starting points of the table', async () => {
      for (const doc of [untransferredDocument(), fullCallDocument(), unansweredCallDocument()]) {
        expect((await ingest(nextCallId(), doc)).status).toBe('created');
      }
    });

    it.each(CROSS_FIELD_CASES)('refuses %s', async (_what, make, name) => {
      const refused = await refusal(make());
      expect(refused).toMatchObject({ code: 'invalid_request', param: name });
      expect(refused.message).toContain(name);
    });

    it('reads an unanswered call without an outcome as not_attempted: listed, and so in call.completed', async () => {
      const callId = nextCallId();
      await ingest(callId, unansweredCallDocument({ outcome: null }));
      const reader = await m.principal(firm.keys.read);
      const page = await m.module.get(CallsService).list(reader, { outcome: 'not_attempted', ids: callId });
      expect(page.calls.map((c) => [c.call_id, c.outcome])).toEqual([[callId, 'not_attempted']]);
      const [event] = await callEvents(callId, 'call.completed');
      expect(JSON.parse(event.data).outcome).toBe('not_attempted');
    });
  });

  describe('every object and array member refuses the wrong shape', () => {
    it('reads every nested member from the DTO', () => {
      const names = MEMBERS.map((x) => `${x.kind} ${param(x.path)}`);
      for (const expected of [
        'object untrusted',
        'object untrusted.summary',
        'object untrusted.details',
        'object untrusted.details.about[0]',
        'array untrusted.details.references',
        'object untrusted.conversation_summary',
        'array untrusted.conversation_summary.key_points',
        'object handling',
        'array handling.chain',
        'object handling.rung[0]',
        'object transcript',
        'object transcript.turns[0]',
        'object lead',
        'object lead.untrusted',
        'object lead.intake.untrusted',
      ]) {
        expect(names).toContain(expected);
      }
      // Each member's path exists in the complete document the table starts from.
      for (const x of MEMBERS) expect(getAt(fullCallDocument(), x.path)).toBeDefined();
    });

    it.each(SHAPE_CASES)('refuses %s as %s, naming it', async (name, _what, path, value) => {
      const doc = fullCallDocument();
      setAt(doc, path as Step[], value);
      expect(await refusal(doc)).toMatchObject({ code: 'invalid_request', param: name });
    });

    // The spec gives these as objects, never "object or null" (untrusted is null only when served with caller data off).
    it.each(['untrusted', 'untrusted.summary', 'lead.untrusted', 'lead.intake.untrusted'])(
      'declares %s not nullable, so the table refuses null for it',
      (name) => {
        expect(MEMBERS.find((x) => param(x.path) === name)).toMatchObject({ kind: 'object', nullable: false });
        expect(SHAPE_CASES.filter((c) => c[0] === name).map((c) => c[1])).toContain('null');
      },
    );

    it.each(MEMBERS.filter((x) => x.kind === 'object' && x.nullable).map((x) => [param(x.path), x.path] as const))(
      'accepts null for %s, which the document declares nullable',
      async (_name, path) => {
        const doc = fullCallDocument();
        setAt(doc, path as Step[], null);
        expect((await ingest(nextCallId(), doc)).status).toBe('created');
      },
    );
  });
});
