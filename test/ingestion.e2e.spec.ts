import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/database/sql';
import { CallsService } from '../src/calls';
import { fullCallDocument, ingestOk, internalEnv, nextCallId, putCall, unansweredCallDocument } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, TEST_INTERNAL_TOKEN, TEST_SECRET_KEY, type TestApp } from './support/test-app';

describe('ingestion: PUT /internal/v1/orgs/{org_id}/calls/{call_id} and call ingest', () => {
  let t: TestApp;
  let firm: TestFirm;
  const events = async (orgId: string, type?: string) =>
    t.sql(
      `SELECT type, data::text AS data FROM events WHERE org_id = $1 ${type ? 'AND type = $2' : ''} ORDER BY seq`,
      type ? [orgId, type] : [orgId],
    );

  beforeAll(async () => {
    t = await startTestApp({ env: { ...internalEnv, DASHBOARD_URL: 'https://dash.test' } });
    firm = await createFirm(t.app);
  });
  afterAll(() => t.close());

  describe('access', () => {
    it('refuses a wrong token with 401 and an unknown or malformed firm with 404', async () => {
      const bad = await t.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/c1`, {
        body: fullCallDocument(),
        headers: { authorization: 'Bearer wrong-token-0123456789' },
      });
      expect(bad.status).toBe(401);
      const apiKey = await t.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/c1`, {
        body: fullCallDocument(),
        key: firm.keys['read-update-leads'],
      });
      expect(apiKey.status).toBe(401);
      const unknown = await putCall(t, '6f1c1f7e-1d1a-4c4e-9a51-3c7b5e0b9a11', 'c1', fullCallDocument());
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('not_found');
      const malformed = await putCall(t, 'not-a-uuid', 'c1', fullCallDocument());
      expect(malformed.status).toBe(404);
      // None of the refused requests wrote the call, whichever firm it was sent for.
      expect(await t.sql(`SELECT count(*)::int AS n FROM calls WHERE call_id = 'c1'`)).toEqual([{ n: 0 }]);
    });

    it('is not in the public OpenAPI document', async () => {
      const doc = await t.get('/v1/openapi.json');
      expect(Object.keys(doc.body.paths).some((p) => p.startsWith('/internal'))).toBe(false);
      // The public operations are there; only the internal tree is left out.
      expect(doc.body.paths['/v1/calls'].get['x-required-scope']).toBe('calls:read');
      expect(doc.body.paths['/v1/leads/{lead_id}'].patch['x-required-scope']).toBe('leads:write');
    });

    it('does not exist at all when INTERNAL_API_TOKEN is unset', async () => {
      const other = await startTestApp();
      try {
        const r = await other.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/c1`, {
          body: fullCallDocument(),
          headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}` },
        });
        expect(r.status).toBe(404);
      } finally {
        await other.close();
      }
    });
  });

  describe('a new call', () => {
    const callId = nextCallId();
    let answer: any;
    beforeAll(async () => {
      const r = await putCall(t, firm.orgId, callId, fullCallDocument());
      expect(r.status).toBe(201);
      answer = r.body;
    });

    it('answers 201 with the call id, created, and the lead', () => {
      expect(answer).toEqual({
        call_id: callId,
        status: 'created',
        lead_id: expect.stringMatching(/^lead_/),
        lead_created: true,
        completed_event: true,
      });
    });

    it('stores the call with normalised numbers and reference keys, never a recording flag', async () => {
      const [c] = await t.sql('SELECT * FROM calls WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId]);
      expect(c.from_e164).toBe('+13125550123');
      expect(c.callback_number).toBe('312.555.0188');
      expect(c.callback_extension).toBe('42');
      expect(c.lead_id).toBe(answer.lead_id);
      expect(c.has_recording).toBe(false);
      expect(c.processing_complete).toBe(true);
      expect(c.untrusted.details.references.map((r: any) => r.key)).toEqual(['CLM77821B', 'RD20260042']);
      const refs = await t.sql('SELECT key FROM call_references WHERE org_id = $1 AND call_id = $2 ORDER BY key', [firm.orgId, callId]);
      expect(refs.map((r) => r.key)).toEqual(['CLM77821B', 'RD20260042']);
    });

    it('joins consecutive speech of one speaker in one part and re-points briefings', async () => {
      const [h] = await t.sql(
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
      const turns = await t.sql(
        'SELECT idx, seg_idx, speaker, text, start_s FROM transcript_turns WHERE org_id = $1 AND call_id = $2 ORDER BY idx',
        [firm.orgId, callId],
      );
      expect(turns[1]).toEqual({ idx: 1, seg_idx: 1, speaker: 'caller', text: 'Hi, I was in a crash. Yesterday on I-90.', start_s: 3.5 });
      expect(turns[3]).toMatchObject({ idx: 3, seg_idx: 0, speaker: 'receptionist' });
    });

    it('creates the lead with status new and emits lead.created then call.completed, exactly shaped, in the same transaction', async () => {
      const [lead] = await t.sql(
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
      const evts = (await events(firm.orgId)).filter((e) => JSON.parse(e.data).call_id === callId);
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
      const [txids] = await t.sql(`SELECT count(DISTINCT e.txid)::int AS n FROM events e WHERE e.org_id = $1 AND e.data->>'call_id' = $2`, [
        firm.orgId,
        callId,
      ]);
      expect(txids.n).toBe(1);
    });

    it('marks the firm as having received its first call, once', async () => {
      const fresh = await createFirm(t.app);
      const firstCallAt = async () => (await t.sql('SELECT first_call_at FROM orgs WHERE id = $1', [fresh.orgId]))[0].first_call_at;
      expect(await firstCallAt()).toBeNull();
      await ingestOk(t, fresh.orgId, nextCallId(), fullCallDocument());
      expect(await firstCallAt()).toEqual(new Date('2026-03-02T15:04:05.000Z'));
      await ingestOk(t, fresh.orgId, nextCallId(), fullCallDocument({ started_at: '2026-03-05T10:00:00.000Z' }));
      expect(await firstCallAt()).toEqual(new Date('2026-03-02T15:04:05.000Z'));
    });
  });

  describe('re-processing', () => {
    it('replaces the call, keeps has_recording and the firm-owned lead fields, moves updated_at, emits nothing again', async () => {
      const callId = nextCallId();
      const first = await ingestOk(t, firm.orgId, callId, fullCallDocument());
      // The recordings context's port.
      await t.app.get(Database).transaction((m) => t.app.get(CallsService).setHasRecording(m, firm.orgId, callId, true));
      await t.sql(`UPDATE leads SET status = 'signed', external_id = 'EXT-9', status_reason = 'Retained' WHERE lead_id = $1`, [
        first.lead_id,
      ]);
      const [beforeCall] = await t.sql('SELECT updated_at FROM calls WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId]);
      const [beforeLead] = await t.sql('SELECT updated_at FROM leads WHERE lead_id = $1', [first.lead_id]);
      const eventsBefore = (await events(firm.orgId)).length;

      const doc = fullCallDocument({ urgency: 'normal', duration_s: 320 });
      doc.lead.email = 'new@example.com';
      doc.untrusted.details.references = [{ kind: 'case_number', value: '24-L-001', for_name: null }];
      const r = await putCall(t, firm.orgId, callId, doc);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        call_id: callId,
        status: 'reprocessed',
        lead_id: first.lead_id,
        lead_created: false,
        completed_event: false,
      });

      const [c] = await t.sql('SELECT urgency, duration_s, has_recording, updated_at FROM calls WHERE org_id = $1 AND call_id = $2', [
        firm.orgId,
        callId,
      ]);
      expect(c).toMatchObject({ urgency: 'normal', duration_s: 320, has_recording: true });
      expect(c.updated_at.getTime()).toBeGreaterThan(beforeCall.updated_at.getTime());
      const [l] = await t.sql('SELECT status, external_id, status_reason, email, urgency, updated_at FROM leads WHERE lead_id = $1', [
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
      const refs = await t.sql('SELECT key FROM call_references WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId]);
      expect(refs).toEqual([{ key: '24L001' }]);
      expect((await events(firm.orgId)).length).toBe(eventsBefore);
    });

    it('emits call.completed once, when processing_complete first turns true', async () => {
      const callId = nextCallId();
      const pending = await ingestOk(t, firm.orgId, callId, fullCallDocument({ processing_complete: false, lead: null }));
      expect(pending).toMatchObject({ status: 'created', completed_event: false, lead_id: null });
      const completed = () =>
        events(firm.orgId, 'call.completed').then((rows) => rows.filter((e) => JSON.parse(e.data).call_id === callId));
      expect(await completed()).toHaveLength(0);
      const done = await ingestOk(t, firm.orgId, callId, fullCallDocument({ processing_complete: true }));
      expect(done).toMatchObject({ status: 'reprocessed', completed_event: true, lead_created: true });
      const [evt] = await completed();
      expect(JSON.parse(evt.data).lead_id).toBe(done.lead_id);
      await ingestOk(t, firm.orgId, callId, fullCallDocument({ processing_complete: true }));
      expect(await completed()).toHaveLength(1);
    });

    it('without a lead: the call loses lead_id, the lead stays readable and comes back on a later re-processing', async () => {
      const callId = nextCallId();
      const first = await ingestOk(t, firm.orgId, callId, fullCallDocument());
      const [beforeLead] = await t.sql('SELECT updated_at FROM leads WHERE lead_id = $1', [first.lead_id]);
      const none = await ingestOk(t, firm.orgId, callId, fullCallDocument({ lead: null }));
      expect(none).toMatchObject({ status: 'reprocessed', lead_id: null, lead_created: false });
      const [c] = await t.sql('SELECT lead_id FROM calls WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId]);
      expect(c.lead_id).toBeNull();
      const call = await t.get(`/v1/calls/${callId}`, { key: firm.keys.read });
      expect(call.body.call).toMatchObject({ lead_id: null, lead_captured: false });
      const [afterLead] = await t.sql('SELECT updated_at FROM leads WHERE lead_id = $1', [first.lead_id]);
      expect(afterLead.updated_at.getTime()).toBeGreaterThan(beforeLead.updated_at.getTime());
      const lead = await t.get(`/v1/leads/${first.lead_id}`, { key: firm.keys.read });
      expect(lead.status).toBe(200);
      expect(lead.body.lead.call_id).toBe(callId);

      const again = await ingestOk(t, firm.orgId, callId, fullCallDocument());
      expect(again).toMatchObject({ lead_id: first.lead_id, lead_created: false });
      const created = (await events(firm.orgId, 'lead.created')).filter((e) => JSON.parse(e.data).call_id === callId);
      expect(created).toHaveLength(1);
    });

    it('ingests an unanswered call with no transcript or lead', async () => {
      const callId = nextCallId();
      const r = await ingestOk(t, firm.orgId, callId, unansweredCallDocument());
      expect(r).toEqual({ call_id: callId, status: 'created', lead_id: null, lead_created: false, completed_event: true });
      expect(await t.sql('SELECT count(*)::int AS n FROM transcripts WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId])).toEqual([
        { n: 0 },
      ]);
    });
  });

  describe('validation: the whole document, the field named, nothing written', () => {
    const nine = <T>(item: T) => Array.from({ length: 9 }, () => item);
    const cases: [string, (d: Record<string, any>) => unknown, string][] = [
      ['nine about people', (d) => void (d.untrusted.details.about = nine({ name: 'A', relation: 'client' })), 'untrusted.details.about'],
      [
        'nine references',
        (d) => void (d.untrusted.details.references = nine({ kind: 'other', value: 'X1', for_name: null })),
        'untrusted.details.references',
      ],
      [
        'nine key points',
        (d) => void (d.untrusted.conversation_summary.key_points = nine('p')),
        'untrusted.conversation_summary.key_points',
      ],
      [
        'nine confirmed details',
        (d) => void (d.untrusted.conversation_summary.confirmed_details = nine({ label: 'a', value: 'b', said_by: 'caller' })),
        'untrusted.conversation_summary.confirmed_details',
      ],
      [
        'nine next steps',
        (d) => void (d.untrusted.conversation_summary.next_steps = nine('s')),
        'untrusted.conversation_summary.next_steps',
      ],
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
    it.each(cases)('refuses %s', async (_name, mutate, param) => {
      const callId = nextCallId();
      const doc = fullCallDocument();
      mutate(doc);
      const before = (await events(firm.orgId)).length;
      const r = await putCall(t, firm.orgId, callId, doc);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('invalid_request');
      expect(r.body.param).toBe(param);
      expect(r.body.detail).toContain(param);
      expect(await t.sql('SELECT count(*)::int AS n FROM calls WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId])).toEqual([
        { n: 0 },
      ]);
      expect((await events(firm.orgId)).length).toBe(before);
    });

    it('refuses a body that is not an object', async () => {
      const r = await putCall(t, firm.orgId, nextCallId(), [fullCallDocument()]);
      expect(r.status).toBe(400);
      expect(r.body.param).toBe('(document)');
    });

    it('leaves an existing call untouched when its re-processing is invalid', async () => {
      const callId = nextCallId();
      await ingestOk(t, firm.orgId, callId, fullCallDocument());
      const [before] = await t.sql('SELECT updated_at, urgency FROM calls WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId]);
      const r = await putCall(t, firm.orgId, callId, fullCallDocument({ urgency: 'extreme' }));
      expect(r.status).toBe(400);
      expect(r.body.param).toBe('urgency');
      const [after] = await t.sql('SELECT updated_at, urgency FROM calls WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId]);
      expect(after).toEqual(before);
    });
  });

  describe('CLI: call ingest', () => {
    const cli = (args: string[], input?: string) =>
      spawnSync(process.execPath, ['dist/src/cli/main.js', ...args], {
        input,
        encoding: 'utf8',
        env: { ...process.env, DATABASE_URL: t.databaseUrl, WEBHOOK_SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'silent' },
      });

    it('reads NDJSON from stdin, generates missing call ids, and prints {"call_ids": [...]} with --json', async () => {
      const given = nextCallId('cli_');
      const ndjson = [JSON.stringify({ ...unansweredCallDocument(), call_id: given }), '', JSON.stringify(fullCallDocument())].join('\n');
      const r = cli(['call', 'ingest', '--org', firm.slug, '--file', '-', '--json'], ndjson);
      expect(r.status).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(Object.keys(out)).toEqual(['call_ids']);
      expect(out.call_ids).toHaveLength(2);
      expect(out.call_ids[0]).toBe(given);
      expect(out.call_ids[1]).toMatch(/^call_/);
      const rows = await t.sql(
        'SELECT call_id, lead_id IS NOT NULL AS has_lead FROM calls WHERE org_id = $1 AND call_id = ANY($2) ORDER BY call_id',
        [firm.orgId, out.call_ids],
      );
      expect(rows).toHaveLength(2);
    });

    it('reads a JSON array from a file, and refuses the whole input when one document is invalid', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ingest-'));
      const ok = [nextCallId('cli_'), nextCallId('cli_')];
      const file = join(dir, 'calls.json');
      writeFileSync(
        file,
        JSON.stringify(
          [
            { ...unansweredCallDocument(), call_id: ok[0] },
            { ...unansweredCallDocument(), call_id: ok[1] },
          ],
          null,
          2,
        ),
      );
      const good = cli(['call', 'ingest', '--org', firm.orgId, '--file', file, '--json']);
      expect(good.status).toBe(0);
      expect(JSON.parse(good.stdout)).toEqual({ call_ids: ok });

      const bad = [nextCallId('cli_'), nextCallId('cli_')];
      writeFileSync(
        file,
        JSON.stringify([
          { ...unansweredCallDocument(), call_id: bad[0] },
          { ...unansweredCallDocument(), call_id: bad[1], urgency: 'extreme' },
        ]),
      );
      const refused = cli(['call', 'ingest', '--org', firm.orgId, '--file', file, '--json']);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('[1].urgency');
      expect(JSON.parse(refused.stdout).error.message).toContain('[1].urgency');
      expect(await t.sql('SELECT count(*)::int AS n FROM calls WHERE org_id = $1 AND call_id = ANY($2)', [firm.orgId, bad])).toEqual([
        { n: 0 },
      ]);
    });
  });
});
