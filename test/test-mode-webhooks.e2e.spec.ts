import { Webhook } from 'standardwebhooks';
import { WebhookEndpointsService } from '../src/webhooks';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { Receiver, waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';
import { createTestKeys, ingestTestCall } from './support/test-mode';

describe('test mode and webhooks: test events reach test endpoints only, live events live ones only', () => {
  let t: TestApp;
  let rx: Receiver;
  let firm: TestFirm;
  let testKey: string;
  const secrets: Record<string, string> = {};
  const endpointIds: Record<string, string> = {};

  beforeAll(async () => {
    rx = await Receiver.start();
    t = await startTestApp({ env: { ...internalEnv, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    firm = await createFirm(t.app, { publish: false });
    testKey = (await createTestKeys(t, firm.orgId)).read;
    for (const [path, livemode] of [
      ['/live', true],
      ['/test', false],
    ] as const) {
      const { endpoint, secret } = await t.app
        .get(WebhookEndpointsService)
        .create({ orgId: firm.orgId, url: rx.url(path), eventTypes: 'call.completed,lead.created', livemode });
      secrets[path] = secret;
      endpointIds[path] = endpoint.id;
    }
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });

  const typesAt = (path: string) => rx.at(path).map((r) => `${JSON.parse(r.body).type} ${JSON.parse(r.body).livemode}`);

  it('a test call is delivered, signed, to the test endpoint alone, with the exact body of GET /v1/events/{id} and livemode false', async () => {
    const callId = nextCallId('call_tmw');
    await ingestTestCall(t, firm.orgId, callId, fullCallDocument());
    const got = await waitFor(
      () => rx.at('/test').find((r) => JSON.parse(r.body).type === 'call.completed' && JSON.parse(r.body).data.call_id === callId),
      'the test call.completed delivery',
      15_000,
    );
    const verified = new Webhook(secrets['/test']).verify(got.body, got.headers as Record<string, string>) as any;
    expect(verified).toMatchObject({ type: 'call.completed', livemode: false, test: false, data: { call_id: callId } });
    const read = await t.get(`/v1/events/${verified.id}`, { key: testKey });
    expect(read.status).toBe(200);
    expect(got.body).toBe(read.text);
    await waitFor(() => typesAt('/test').includes('lead.created false'), 'the test lead.created delivery', 15_000);

    // Now a live call: it goes to the live endpoint; by then nothing of test mode had reached it.
    const liveCallId = nextCallId('call_tmw');
    await ingestOk(t, firm.orgId, liveCallId, fullCallDocument());
    const live = await waitFor(
      () => rx.at('/live').find((r) => JSON.parse(r.body).data.call_id === liveCallId),
      'the live call.completed delivery',
      15_000,
    );
    expect(new Webhook(secrets['/live']).verify(live.body, live.headers as Record<string, string>)).toMatchObject({ livemode: true });
    await waitFor(() => typesAt('/live').includes('lead.created true'), 'the live lead.created delivery', 15_000);
    expect(new Set(typesAt('/live'))).toEqual(new Set(['call.completed true', 'lead.created true']));
    expect(new Set(typesAt('/test'))).toEqual(new Set(['call.completed false', 'lead.created false']));
    // And in the database: every delivery's endpoint has its event's mode.
    const mixed = await t.sql(
      `SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN events v ON v.id = d.event_id
        WHERE d.org_id = $1 AND e.livemode <> v.livemode`,
      [firm.orgId],
    );
    expect(mixed).toEqual([]);
  });

  it('endpoint lists show livemode and only the key’s mode', async () => {
    const asTest = await t.get('/v1/webhook-endpoints', { key: testKey });
    const asLive = await t.get('/v1/webhook-endpoints', { key: firm.keys.read });
    expect(asTest.body.endpoints.map((e: any) => [e.id, e.livemode])).toEqual([[endpointIds['/test'], false]]);
    expect(asLive.body.endpoints.map((e: any) => [e.id, e.livemode])).toEqual([[endpointIds['/live'], true]]);
  });

  it('a webhook.test sent to the test endpoint is a test-mode event: livemode false, read by the test key only', async () => {
    const sent = await t.request('POST', `/v1/webhook-endpoints/${endpointIds['/test']}/test`, { key: testKey });
    expect(sent.status).toBe(202);
    const eventId = sent.body.delivery.event_id;
    const read = await t.get(`/v1/events/${eventId}`, { key: testKey });
    expect(read.body).toMatchObject({ type: 'webhook.test', test: true, livemode: false });
    expect((await t.get(`/v1/events/${eventId}`, { key: firm.keys.read })).status).toBe(404);
    const got = await waitFor(() => rx.at('/test').find((r) => JSON.parse(r.body).id === eventId), 'the webhook.test delivery');
    expect(got.body).toBe(read.text);
  });

  it('deliveries: a test key lists only deliveries to test endpoints, a live key only to live ones', async () => {
    const asTest = (await t.get('/v1/webhook-deliveries', { key: testKey })).body.deliveries;
    const asLive = (await t.get('/v1/webhook-deliveries', { key: firm.keys.read })).body.deliveries;
    expect(asTest.length).toBeGreaterThan(0);
    expect(asLive.length).toBeGreaterThan(0);
    expect(new Set(asTest.map((d: any) => d.endpoint_id))).toEqual(new Set([endpointIds['/test']]));
    expect(new Set(asLive.map((d: any) => d.endpoint_id))).toEqual(new Set([endpointIds['/live']]));
  });

  it('the 5-endpoints limit counts each mode on its own', async () => {
    const f = await createFirm(t.app, { publish: false });
    const svc = t.app.get(WebhookEndpointsService);
    const add = (i: number, livemode: boolean) =>
      svc.create({ orgId: f.orgId, url: rx.url(`/limit/${livemode}/${i}`), eventTypes: 'lead.created', livemode });
    for (let i = 0; i < 5; i++) await add(i, true);
    await expect(add(5, true)).rejects.toMatchObject({ code: 'invalid_request' });
    for (let i = 0; i < 5; i++) await add(i, false);
    await expect(add(5, false)).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await svc.list(f.orgId, null)).toHaveLength(10);
  });
});
