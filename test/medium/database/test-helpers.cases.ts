import type { StreamableFile } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { ApiKeyService } from '../../../src/auth';
import { CallsService } from '../../../src/calls';
import type { ApiPrincipal } from '../../../src/common/http/principal';
import { IngestionService } from '../../../src/ingestion';
import { LeadsService } from '../../../src/leads';
import { RecordingsService } from '../../../src/recordings';
import { TestHelpersModule, TestHelpersService } from '../../../src/test-helpers';
import { TranscriptsService } from '../../../src/transcripts';
import { WebhookEndpointsService, WebhooksWorkerModule } from '../../../src/webhooks';
import { fullCallDocument } from '../../support/call-documents';
import { createFirm, type TestFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';
import { Receiver, waitFor } from '../../support/receiver';

type Simulate = Parameters<TestHelpersService['simulate']>[1];

/** The JSON a streamed answer carries. */
async function json(file: StreamableFile): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of file.getStream()) chunks.push(Buffer.from(chunk as Uint8Array));
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * TestHelpersService (POST /v1/test-helpers/calls and /reprocess) against the real database, without HTTP: the calls
 * it makes through the pipeline's own port, as test data the key's mode alone sees, whose events reach only the
 * firm's test endpoints (the delivery worker runs here, with a real receiver).
 */
describe('TestHelpersService', () => {
  let m: MediumService<TestHelpersService>;
  let rx: Receiver;
  let firm: TestFirm;
  let test: ApiPrincipal;
  let live: ApiPrincipal;
  let testSecret: string;
  let liveEndpointId: string;

  beforeAll(async () => {
    rx = await Receiver.start();
    m = await newMediumService(TestHelpersService, {
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      imports: [TestHelpersModule, WebhooksWorkerModule],
    });
    firm = await createFirm(m.module);
    live = await m.principal(firm.keys['read-update-leads']);
    const testKey = (
      await m.module.get(ApiKeyService).create({ orgId: firm.orgId, name: 'test', set: 'read-update-leads', livemode: false })
    ).key;
    test = await m.principal(testKey);
    const endpoints = m.module.get(WebhookEndpointsService);
    const types = 'call.completed,lead.created,lead.updated';
    testSecret = (await endpoints.create({ orgId: firm.orgId, url: rx.url('/test'), eventTypes: types, livemode: false })).secret;
    liveEndpointId = (await endpoints.create({ orgId: firm.orgId, url: rx.url('/live'), eventTypes: types })).endpoint.id;
  });
  afterAll(async () => {
    await m.close();
    await rx.close();
  });
  afterEach(() => m.clock.reset());

  const simulate = (body: Simulate = {}, p = test) => m.sut.simulate(p, body);
  const call = async (id: string, p = test) => (await m.module.get(CallsService).get(p, id)).call;
  const segments = async (id: string) =>
    new Set(
      ((await json(await m.module.get(TranscriptsService).get(test, id, {}))).untrusted.turns as { segment: string }[]).map(
        (x) => x.segment,
      ),
    );
  const recording = async (id: string, p = test) => {
    const playback = await m.module.get(RecordingsService).openForKey(p, id, {});
    const chunks: Buffer[] = [];
    for await (const chunk of playback.object.stream()) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  };
  /** The deliveries received at `path` for this call. */
  const received = (path: string, callId: string) =>
    rx
      .at(path)
      .map((r) => ({ r, event: JSON.parse(r.body) }))
      .filter(({ event }) => event.data?.call_id === callId);
  const callCount = async () => Number((await m.sql(`SELECT count(*) AS n FROM calls WHERE org_id = $1`, [firm.orgId]))[0].n);

  it('with no body: an answered new_injury_lead call put through, with transcript, a playable recording and a lead, in test mode only', async () => {
    const { call_id, lead_id } = await simulate();
    expect(call_id).toMatch(/^call_/);
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
    expect(c.untrusted!.summary.reason).toEqual(expect.any(String));
    expect(c.untrusted!.details).not.toBeNull();
    expect(await segments(call_id)).toEqual(new Set(['intake', 'briefing', 'conversation']));
    expect((await recording(call_id)).subarray(0, 4).toString('latin1')).toBe('OggS');
    expect((await m.module.get(LeadsService).get(test, lead_id!)).lead).toMatchObject({ lead_id, call_id, status: 'new' });

    // The live key of the same firm sees none of it.
    await expect(call(call_id, live)).rejects.toMatchObject({ code: 'not_found' });
    await expect(m.module.get(TranscriptsService).get(live, call_id, {})).rejects.toMatchObject({ code: 'not_found' });
    await expect(m.module.get(LeadsService).get(live, lead_id!)).rejects.toMatchObject({ code: 'not_found' });
    await expect(recording(call_id, live)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('call.completed and lead.created reach the test endpoint, signed and marked livemode false, and never the live one', async () => {
    const { call_id, lead_id } = await simulate({ category: 'referring_attorney' });
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
    const liveRows = await m.sql(
      `SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.endpoint_id = $1 AND e.data->>'call_id' = $2`,
      [liveEndpointId, call_id],
    );
    expect({ live: liveRows, received: received('/live', call_id).length }).toEqual({ live: [], received: 0 });
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
  ] as [Simulate, Record<string, unknown>, string[]][])('%j makes the call asked for', async (body, expected, parts) => {
    const { call_id, lead_id } = await simulate(body);
    const c = await call(call_id);
    expect(c).toMatchObject({ ...expected, processing_complete: true });
    expect(c.lead_id).toBe(lead_id);
    expect(await segments(call_id)).toEqual(new Set(parts));
    if (c.has_recording) expect((await recording(call_id)).length).toBeGreaterThan(0);
    else await expect(recording(call_id)).rejects.toMatchObject({ code: 'not_found' });
    // Every simulated call gets its call.completed, lead or not, recording or not.
    await waitFor(() => received('/test', call_id).some(({ event }) => event.type === 'call.completed'), `call.completed of ${call_id}`);
  });

  it.each([
    [{ answered: false, outcome: 'connected' }, 'outcome'],
    [{ answered: false, lead: true }, 'lead'],
    [{ answered: false, category: 'sales' }, 'category'],
  ] as [Simulate, string][])('refuses %j naming %s, writing nothing', async (body, param) => {
    const calls = await callCount();
    await expect(simulate(body)).rejects.toMatchObject({ code: 'invalid_request', param });
    expect(await callCount()).toBe(calls);
  });

  it('reprocess moves updated_at; with lead false, lead_id turns null (the lead stays readable); no second call.completed', async () => {
    const { call_id, lead_id } = await simulate();
    const before = await call(call_id);
    m.clock.advance(60_000);
    expect(await m.sut.reprocess(test, call_id, { lead: false })).toEqual({ call_id, lead_id: null });
    const after = await call(call_id);
    expect(after).toMatchObject({
      lead_id: null,
      lead_captured: false,
      has_recording: true,
      category: before.category,
      started_at: before.started_at,
    });
    expect(new Date(after.updated_at!).getTime()).toBeGreaterThan(new Date(before.updated_at!).getTime());
    expect((await m.module.get(LeadsService).get(test, lead_id!)).lead.lead_id).toBe(lead_id);

    // No body: re-processed as it stands; lead true finds the same lead again (a call yields at most one, ever).
    m.clock.advance(60_000);
    expect(await m.sut.reprocess(test, call_id, {})).toEqual({ call_id, lead_id: null });
    expect(new Date((await call(call_id)).updated_at!).getTime()).toBeGreaterThan(new Date(after.updated_at!).getTime());
    expect(await m.sut.reprocess(test, call_id, { lead: true })).toEqual({ call_id, lead_id });
    const completed = await m.sql(`SELECT id FROM events WHERE org_id = $1 AND type = 'call.completed' AND data->>'call_id' = $2`, [
      firm.orgId,
      call_id,
    ]);
    expect(completed).toHaveLength(1);
  });

  it('reprocess with lead true on a call without one creates it, with lead.created; on an unanswered call it is refused', async () => {
    const { call_id } = await simulate({ category: 'existing_client', lead: false });
    expect((await m.sut.reprocess(test, call_id, { lead: true })).lead_id).toMatch(/^lead_/);
    await waitFor(() => received('/test', call_id).some(({ event }) => event.type === 'lead.created'), 'lead.created after reprocess');
    const unanswered = await simulate({ answered: false });
    await expect(m.sut.reprocess(test, unanswered.call_id, { lead: true })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'lead',
    });
  });

  it('reprocess: an unknown id, another firm’s and a live call’s are not found like one another, and change nothing', async () => {
    const liveCall = `call_live_${process.pid}`;
    await m.module.get(IngestionService).ingest(firm.orgId, fullCallDocument({ call_id: liveCall }), liveCall, { livemode: true });
    const liveBefore = await call(liveCall, live);
    const other = await createFirm(m.module);
    const otherTest = await m.principal(
      (await m.module.get(ApiKeyService).create({ orgId: other.orgId, name: 't', set: 'read', livemode: false })).key,
    );
    const { call_id } = await simulate({ recording: false });
    for (const [id, p] of [
      ['call_nobody', test],
      [liveCall, test],
      [call_id, otherTest],
    ] as const) {
      await expect(m.sut.reprocess(p, id, { lead: false })).rejects.toMatchObject({ code: 'not_found' });
    }
    expect(await call(liveCall, live)).toEqual(liveBefore);
  });
});
