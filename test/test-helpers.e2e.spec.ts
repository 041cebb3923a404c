import { Webhook } from 'standardwebhooks';
import { ApiKeyService } from '../src/auth';
import { IngestionService } from '../src/ingestion';
import { WebhookEndpointsService } from '../src/webhooks';
import { fullCallDocument } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { Receiver, waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * POST /v1/test-helpers/calls and /reprocess: test-mode calls through the
 * pipeline's own port, readable only with test keys, whose events reach only
 * the firm's test endpoints.
 */
describe('test helpers', () => {
  let t: TestApp;
  let rx: Receiver;
  let firm: TestFirm;
  let testKey: string;
  let liveKey: string;
  let testSecret: string;
  let liveEndpointId: string;

  beforeAll(async () => {
    rx = await Receiver.start();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    firm = await createFirm(t.app);
    liveKey = firm.keys['read-update-leads'];
    testKey = (await t.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'test', set: 'read-update-leads', livemode: false })).key;
    const endpoints = t.app.get(WebhookEndpointsService);
    const types = 'call.completed,lead.created,lead.updated';
    testSecret = (await endpoints.create({ orgId: firm.orgId, url: rx.url('/test'), eventTypes: types, livemode: false })).secret;
    liveEndpointId = (await endpoints.create({ orgId: firm.orgId, url: rx.url('/live'), eventTypes: types })).endpoint.id;
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });
  afterEach(() => t.clock.reset());

  const simulate = (body?: unknown, key = testKey) => t.request('POST', '/v1/test-helpers/calls', { key, body });
  const reprocess = (callId: string, body?: unknown, key = testKey) =>
    t.request('POST', `/v1/test-helpers/calls/${callId}/reprocess`, { key, body });
  const created = async (body?: unknown): Promise<{ call_id: string; lead_id: string | null }> => {
    const r = await simulate(body);
    expect({ status: r.status, body: r.body }).toEqual({
      status: 201,
      body: { call_id: expect.stringMatching(/^call_/), lead_id: r.body.lead_id === null ? null : expect.stringMatching(/^lead_/) },
    });
    return r.body;
  };
  const call = async (id: string, key = testKey) => (await t.get(`/v1/calls/${id}`, { key })).body.call;
  const segments = async (id: string) =>
    new Set(
      ((await t.get(`/v1/calls/${id}/transcript`, { key: testKey })).body.untrusted.turns as { segment: string }[]).map((x) => x.segment),
    );
  const recording = async (id: string, key = testKey) => {
    const path = `/v1/calls/${id}/recording`;
    const res = await t.check('GET', path, await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } }));
    return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  };
  /** The deliveries received at `path` for this call, verified with the test endpoint's secret where asked. */
  const received = (path: string, callId: string) =>
    rx
      .at(path)
      .map((r) => ({ r, event: JSON.parse(r.body) }))
      .filter(({ event }) => event.data?.call_id === callId);
  const callCount = async () => Number((await t.sql(`SELECT count(*) AS n FROM calls WHERE org_id = $1`, [firm.orgId]))[0].n);

  it('with no body: an answered new_injury_lead call put through, with transcript, a playable recording and a lead, for test keys only', async () => {
    const { call_id, lead_id } = await created();
    expect(lead_id).toMatch(/^lead_/);
    const c = await call(call_id);
    expect(c).toMatchObject({
      answered: true,
      category: 'new_injury_lead',
      outcome: 'connected',
      lead_id,
      has_recording: true,
      processing_complete: true,
    });
    expect(c.untrusted.summary.reason).toEqual(expect.any(String));
    expect(c.untrusted.details).not.toBeNull();
    expect(await segments(call_id)).toEqual(new Set(['intake', 'briefing', 'conversation']));
    const audio = await recording(call_id);
    expect({ status: audio.status, type: audio.type, magic: audio.bytes.subarray(0, 4).toString('latin1') }).toEqual({
      status: 200,
      type: 'audio/ogg',
      magic: 'OggS',
    });
    const lead = (await t.get(`/v1/leads/${lead_id}`, { key: testKey })).body.lead;
    expect(lead).toMatchObject({ lead_id, call_id, status: 'new' });

    // The live key of the same firm sees none of it.
    for (const path of [`/v1/calls/${call_id}`, `/v1/calls/${call_id}/transcript`, `/v1/leads/${lead_id}`]) {
      expect(`${path}: ${(await t.get(path, { key: liveKey })).status}`).toBe(`${path}: 404`);
    }
    expect((await recording(call_id, liveKey)).status).toBe(404);
  });

  it('call.completed and lead.created reach the test endpoint, signed and marked livemode false, and never the live one', async () => {
    const { call_id, lead_id } = await created({ category: 'referring_attorney' });
    await waitFor(() => received('/test', call_id).length >= 2, 'call.completed and lead.created at the test endpoint');
    const both = received('/test', call_id);
    const webhook = new Webhook(testSecret);
    for (const { r } of both) expect(() => webhook.verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    const byType = Object.fromEntries(both.map(({ event }) => [event.type, event]));
    expect(byType['call.completed']).toMatchObject({
      livemode: false,
      data: { call_id, lead_id, has_recording: true, category: 'referring_attorney' },
    });
    expect(byType['lead.created']).toMatchObject({ livemode: false, data: { call_id, lead_id, status: 'new' } });
    // Fan-out commits with the event: no delivery row for the live endpoint means none will ever be sent.
    const live = await t.sql(
      `SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.endpoint_id = $1 AND e.data->>'call_id' = $2`,
      [liveEndpointId, call_id],
    );
    expect({ live, received: received('/live', call_id).length }).toEqual({ live: [], received: 0 });
  });

  it.each([
    [{ answered: false }, { answered: false, category: null, outcome: 'not_attempted', lead_id: null, has_recording: false }, []],
    [
      { category: 'sales', outcome: 'not_attempted' },
      { category: 'sales', outcome: 'not_attempted', lead_id: null, has_recording: true },
      ['intake'],
    ],
    [
      { category: 'existing_client', outcome: 'declined', lead: true, caller_number: '(312) 555-0177', recording: false },
      { category: 'existing_client', outcome: 'declined', from: '+13125550177', lead_captured: true, has_recording: false },
      ['intake', 'briefing'],
    ],
    [{ category: 'new_injury_lead', lead: false, outcome: 'no_answer' }, { outcome: 'no_answer', lead_id: null }, ['intake']],
    [
      { category: 'wrong_number', outcome: 'connected', caller_number: '+442071838750' },
      { from: '+442071838750', lead_id: null },
      ['intake', 'briefing', 'conversation'],
    ],
  ])('%j makes the call asked for', async (body, expected, parts) => {
    const { call_id, lead_id } = await created(body);
    const c = await call(call_id);
    expect(c).toMatchObject({ ...expected, processing_complete: true });
    expect(c.lead_id).toBe(lead_id);
    expect(await segments(call_id)).toEqual(new Set(parts));
    expect((await recording(call_id)).status).toBe(c.has_recording ? 200 : 404);
    // Every simulated call gets its call.completed, lead or not, recording or not.
    await waitFor(() => received('/test', call_id).some(({ event }) => event.type === 'call.completed'), `call.completed of ${call_id}`);
  });

  it('reprocess moves updated_at; with lead false, lead_id turns null (the lead stays readable); no second call.completed', async () => {
    const { call_id, lead_id } = await created();
    const before = await call(call_id);
    t.clock.advance(60_000);
    const r = await reprocess(call_id, { lead: false });
    expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: { call_id, lead_id: null } });
    const after = await call(call_id);
    expect(after).toMatchObject({
      lead_id: null,
      lead_captured: false,
      has_recording: true,
      category: before.category,
      started_at: before.started_at,
    });
    expect(new Date(after.updated_at).getTime()).toBeGreaterThan(new Date(before.updated_at).getTime());
    expect((await t.get(`/v1/leads/${lead_id}`, { key: testKey })).status).toBe(200);

    // No body: re-processed as it stands; lead true finds the same lead again (a call yields at most one, ever).
    t.clock.advance(60_000);
    expect((await reprocess(call_id)).body).toEqual({ call_id, lead_id: null });
    expect(new Date((await call(call_id)).updated_at).getTime()).toBeGreaterThan(new Date(after.updated_at).getTime());
    expect((await reprocess(call_id, { lead: true })).body).toEqual({ call_id, lead_id });
    const completed = await t.sql(`SELECT id FROM events WHERE org_id = $1 AND type = 'call.completed' AND data->>'call_id' = $2`, [
      firm.orgId,
      call_id,
    ]);
    expect(completed).toHaveLength(1);
  });

  it('reprocess with lead true on a call without one creates it, with lead.created', async () => {
    const { call_id } = await created({ category: 'existing_client', lead: false });
    const r = await reprocess(call_id, { lead: true });
    expect(r.body.lead_id).toMatch(/^lead_/);
    await waitFor(() => received('/test', call_id).some(({ event }) => event.type === 'lead.created'), 'lead.created after reprocess');
  });

  it('reprocess: an unknown id, another firm’s and a live call’s answer 404 like one another', async () => {
    const liveCall = `call_live_${process.pid}`;
    await t.app.get(IngestionService).ingest(firm.orgId, fullCallDocument({ call_id: liveCall }), liveCall, { livemode: true });
    const liveBefore = await call(liveCall, liveKey);
    const other = await createFirm(t.app);
    const otherTest = (await t.app.get(ApiKeyService).create({ orgId: other.orgId, name: 't', set: 'read', livemode: false })).key;
    const { call_id } = await created({ recording: false });
    for (const [id, key] of [
      ['call_nobody', testKey],
      [liveCall, testKey],
      [call_id, otherTest],
    ] as const) {
      const r = await reprocess(id, { lead: false }, key);
      expect({ id, status: r.status, code: r.body.code }).toEqual({ id, status: 404, code: 'not_found' });
    }
    expect(await call(liveCall, liveKey)).toEqual(liveBefore);
  });

  it('a live key gets 403 test_mode_only on both, whatever its scopes, and nothing is written', async () => {
    const { call_id, lead_id } = await created({ recording: false });
    const calls = await callCount();
    for (const key of Object.values(firm.keys)) {
      for (const r of [await simulate({}, key), await reprocess(call_id, { lead: false }, key)]) {
        expect({ status: r.status, code: r.body.code }).toEqual({ status: 403, code: 'test_mode_only' });
      }
    }
    expect(await callCount()).toBe(calls);
    expect((await call(call_id)).lead_id).toBe(lead_id);
  });

  it('any test key will do (no scope needed); answers carry the rate limit', async () => {
    const readOnly = (await t.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'ro', set: 'read-no-transcripts', livemode: false }))
      .key;
    const r = await simulate({ recording: false }, readOnly);
    expect(r.status).toBe(201);
    expect(r.headers.get('ratelimit')).toEqual(expect.any(String));
  });

  it.each([
    [{ colour: 'blue' }, 'colour'],
    [{ category: 'divorce' }, 'category'],
    [{ outcome: 'transferred' }, 'outcome'],
    [{ answered: 'yes' }, 'answered'],
    [{ lead: null }, 'lead'],
    [{ recording: 1 }, 'recording'],
    [{ caller_number: '555' }, 'caller_number'],
    [{ caller_number: 3125550100 }, 'caller_number'],
    [{ answered: false, outcome: 'connected' }, 'outcome'],
    [{ answered: false, lead: true }, 'lead'],
    [{ answered: false, category: 'sales' }, 'category'],
    [[], 'body'],
  ])('refuses %j with 400 naming %s, writing nothing', async (body, param) => {
    const calls = await callCount();
    const r = await simulate(body);
    expect({ status: r.status, code: r.body.code, param: r.body.param }).toEqual({ status: 400, code: 'invalid_request', param });
    expect(await callCount()).toBe(calls);
  });

  it('reprocess refuses a bad body (400), lead true on an unanswered call (400 naming lead)', async () => {
    const { call_id } = await created({ answered: false });
    for (const [body, param] of [
      [{ lead: 'no' }, 'lead'],
      [{ lead: false, extra: 1 }, 'extra'],
      [{ lead: true }, 'lead'],
    ] as const) {
      const r = await reprocess(call_id, body);
      expect({ status: r.status, code: r.body.code, param: r.body.param }).toEqual({ status: 400, code: 'invalid_request', param });
    }
  });

  it('bodies follow the API’s rules: 415 for another content type, 413 over 16 KiB', async () => {
    for (const path of ['/v1/test-helpers/calls', '/v1/test-helpers/calls/call_x/reprocess']) {
      const xml = await t.request('POST', path, { key: testKey, rawBody: '<call/>', headers: { 'content-type': 'application/xml' } });
      expect({ path, status: xml.status, code: xml.body.code }).toEqual({ path, status: 415, code: 'unsupported_media_type' });
      const big = JSON.stringify({ caller_number: ' '.repeat(16 * 1024) });
      const large = await t.request('POST', path, { key: testKey, rawBody: big, headers: { 'content-type': 'application/json' } });
      expect({ path, status: large.status, code: large.body.code }).toEqual({ path, status: 413, code: 'payload_too_large' });
    }
  });
});
