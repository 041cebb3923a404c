import { type WebhookEndpointsService } from '../../../src/webhooks';
import { restrictKey } from '../../support/events';
import { createFirm, type TestFirm } from '../../support/factories';
import { startTestApp, type TestApp } from '../../support/test-app';

/** What ../webhook-api.cases.ts hands its action cases, once its app is up. */
export interface WebhookApiContext {
  t: TestApp;
  other: TestFirm;
  endpoints(): WebhookEndpointsService;
  createEndpoint(f: TestFirm, path: string, types?: string, description?: string): ReturnType<WebhookEndpointsService['create']>;
  record(
    orgId: string,
    type: 'call.completed' | 'lead.created' | 'lead.updated',
    data?: Record<string, unknown>,
  ): Promise<{ envelope: { id: string } }>;
  idle(): Promise<void>;
  attempted(eventIds: string[], count: number): Promise<unknown>;
  waitStatus(id: string, status: string): Promise<unknown>;
}

/** The webhook API's actions: send a test, redeliver, and the rate limit on both (the app: ../webhook-api.cases.ts). */
export function actionCases(context: () => WebhookApiContext): void {
  let t: TestApp;
  let other: TestFirm;
  let endpoints: WebhookApiContext['endpoints'];
  let createEndpoint: WebhookApiContext['createEndpoint'];
  let record: WebhookApiContext['record'];
  let idle: WebhookApiContext['idle'];
  let attempted: WebhookApiContext['attempted'];
  let waitStatus: WebhookApiContext['waitStatus'];
  beforeAll(() => {
    ({ t, other, endpoints, createEndpoint, record, idle, attempted, waitStatus } = context());
  });

  describe('POST /v1/webhook-endpoints/{id}/test', () => {
    it('answers 202 with the pending delivery of a new webhook.test event', async () => {
      const f = await createFirm(t.app, { publish: false });
      const { endpoint } = await createEndpoint(f, '/test/ok', 'call.completed');
      const r = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { key: f.keys['read-no-transcripts'] });
      expect(r.status).toBe(202);
      expect(Object.keys(r.body)).toEqual(['delivery']);
      const d = r.body.delivery;
      expect(d).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        endpoint_id: endpoint.id,
        event_id: expect.stringMatching(/^evt_/),
        event_type: 'webhook.test',
        trigger: 'test',
        status: 'pending',
        attempt_count: 0,
        attempts: [],
        next_attempt_at: d.created_at,
        completed_at: null,
        created_at: expect.any(String),
      });
      const event = await t.get(`/v1/events/${d.event_id}`, { key: f.keys.read });
      expect(event.status).toBe(200);
      expect(event.body).toMatchObject({ id: d.event_id, type: 'webhook.test', test: true, livemode: true });
      await waitStatus(d.id, 'succeeded');
    });

    it("404 for an unknown or another firm's endpoint, 400 for a non-uuid, 409 when off, 403 without webhooks:test", async () => {
      const f = await createFirm(t.app, { publish: false });
      const theirs = (await createEndpoint(other, '/test/theirs')).endpoint.id;
      for (const id of [theirs, '00000000-0000-4000-8000-000000000000']) {
        const r = await t.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: f.keys.read });
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('not_found');
      }
      const bad = await t.request('POST', '/v1/webhook-endpoints/nope/test', { key: f.keys.read });
      expect(bad.body).toMatchObject({ status: 400, param: 'endpoint_id' });
      const { endpoint } = await createEndpoint(f, '/test/off');
      await endpoints().disable(endpoint.id);
      const off = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { key: f.keys.read });
      expect(off.status).toBe(409);
      expect(off.body).toMatchObject({ code: 'endpoint_disabled', disabled_reason: 'owner' });
      await endpoints().enable(endpoint.id);
      await restrictKey(t, f.keyIds['read-update-leads'], ['org:read', 'webhooks:read']);
      const noScope = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { key: f.keys['read-update-leads'] });
      expect(noScope.status).toBe(403);
      expect(noScope.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'webhooks:test' });
      expect(await t.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id])).toEqual([{ n: 0 }]);
    });
  });

  describe('POST /v1/webhook-deliveries/{id}/redeliver', () => {
    it('answers 202 with the new pending delivery (trigger redelivery) of the same event', async () => {
      const f = await createFirm(t.app, { publish: false });
      const { endpoint } = await createEndpoint(f, '/re/ok');
      const e = await record(f.orgId, 'lead.created', { lead_id: 'lead_re' });
      await attempted([e.envelope.id], 1);
      const [original] = (await t.get('/v1/webhook-deliveries', { key: f.keys.read })).body.deliveries;
      expect(original.status).toBe('succeeded');
      const r = await t.request('POST', `/v1/webhook-deliveries/${original.id}/redeliver`, { key: f.keys.read });
      expect(r.status).toBe(202);
      expect(r.body.delivery).toMatchObject({
        endpoint_id: endpoint.id,
        event_id: e.envelope.id,
        event_type: 'lead.created',
        trigger: 'redelivery',
        status: 'pending',
        attempt_count: 0,
        attempts: [],
      });
      expect(r.body.delivery.id).not.toBe(original.id);
      await waitStatus(r.body.delivery.id, 'succeeded');
    });

    it("404 for another firm's or an unknown delivery, 400 for a non-uuid, 409 when the endpoint is off", async () => {
      const f = await createFirm(t.app, { publish: false });
      const { endpoint } = await createEndpoint(f, '/re/off');
      await attempted([(await record(f.orgId, 'lead.created', {})).envelope.id], 1);
      const [mine] = (await t.get('/v1/webhook-deliveries', { key: f.keys.read })).body.deliveries;
      expect((await t.request('POST', `/v1/webhook-deliveries/${mine.id}/redeliver`, { key: other.keys.read })).status).toBe(404);
      expect(
        (await t.request('POST', `/v1/webhook-deliveries/00000000-0000-4000-8000-000000000000/redeliver`, { key: f.keys.read })).status,
      ).toBe(404);
      expect((await t.request('POST', `/v1/webhook-deliveries/123/redeliver`, { key: f.keys.read })).body).toMatchObject({
        status: 400,
        param: 'delivery_id',
      });
      await endpoints().disable(endpoint.id);
      const off = await t.request('POST', `/v1/webhook-deliveries/${mine.id}/redeliver`, { key: f.keys.read });
      expect(off.status).toBe(409);
      expect(off.body.code).toBe('endpoint_disabled');
    });
  });

  describe('rate limit: 5 tests and resends per endpoint per minute', () => {
    it('answers the 6th with 429 rate_limited and a Retry-After the body repeats', async () => {
      // Exact seconds: real time must not slide the window between requests on a busy machine.
      t.clock.freeze();
      const f = await createFirm(t.app, { publish: false });
      const { endpoint } = await createEndpoint(f, '/rl/a');
      const test = () => t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { key: f.keys.read });
      const first = await test();
      expect(first.status).toBe(202);
      await waitStatus(first.body.delivery.id, 'succeeded');
      for (let i = 0; i < 3; i++) {
        t.clock.advance(10_000);
        expect((await test()).status).toBe(202);
      }
      t.clock.advance(10_000);
      // A resend counts against the same limit.
      const resend = () => t.request('POST', `/v1/webhook-deliveries/${first.body.delivery.id}/redeliver`, { key: f.keys.read });
      expect((await resend()).status).toBe(202);
      t.clock.advance(5_000); // 45 s after the first of the five
      const limited = await test();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('15');
      expect(limited.body).toMatchObject({ code: 'rate_limited', retry_after: 15 });
      const resent = await resend();
      expect(resent.status).toBe(429);
      expect(resent.headers.get('retry-after')).toBe('15');
      await idle();
    });

    it('is counted in the database, so it holds across API processes and under concurrency', async () => {
      const t2 = await startTestApp({ databaseUrl: t.databaseUrl, env: { ROLE: 'api' } });
      try {
        const f = await createFirm(t.app, { publish: false });
        const { endpoint } = await createEndpoint(f, '/rl/shared');
        const send = (app: TestApp) => app.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { key: f.keys.read });
        // Both processes at one frozen instant: on a loaded machine the ten requests span more than a real second.
        const at = Date.now();
        for (const app of [t, t2]) app.clock.freezeAt(at);
        const results = await Promise.all([t, t2, t, t2, t, t2, t, t2, t, t2].map(send));
        expect(results.map((r) => r.status).sort()).toEqual([202, 202, 202, 202, 202, 429, 429, 429, 429, 429]);
        for (const r of results.filter((x) => x.status === 429)) {
          const seconds = Number(r.headers.get('retry-after'));
          expect(seconds).toBeGreaterThanOrEqual(59);
          expect(seconds).toBeLessThanOrEqual(60);
        }
        expect(await t.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id])).toEqual([{ n: 5 }]);
        await idle();
      } finally {
        await t2.close();
      }
    });
  });
}
