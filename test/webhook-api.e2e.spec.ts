import { Database } from '../src/database/sql';
import { EventsService } from '../src/events';
import { DeliveryDispatcher, WebhookEndpointsService } from '../src/webhooks';
import { deliveryReaches, firstAttemptsRecorded } from './support/deliveries';
import { recordEvent, restrictKey } from './support/events';
import { createFirm, type TestFirm } from './support/factories';
import { Receiver } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';

const ENDPOINT_KEYS = [
  'id',
  'url',
  'description',
  'event_types',
  'status',
  'disabled_reason',
  'secret_last4',
  'last_success_at',
  'last_failure_at',
  'failing_since',
  'created_at',
  'livemode',
];
const DELIVERY_KEYS = [
  'id',
  'endpoint_id',
  'event_id',
  'event_type',
  'trigger',
  'status',
  'attempt_count',
  'attempts',
  'next_attempt_at',
  'completed_at',
  'created_at',
];

/**
 * The HTTP contract of the webhook API: the answers' status, shape and headers, refusals, scopes, 404s and 409s,
 * and the rate limit across API processes. The rules behind them (order, filters, pages, what a test or resend
 * sends, the window's arithmetic) are tested on the services: test/medium/webhooks.spec.ts.
 */
describe('webhook API: endpoints, deliveries, test, redeliver', () => {
  let t: TestApp;
  let rx: Receiver;
  let firm: TestFirm;
  let other: TestFirm;
  let key: string;

  beforeAll(async () => {
    rx = await Receiver.start();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    firm = await createFirm(t.app, { publish: false });
    other = await createFirm(t.app, { publish: false });
    key = firm.keys['read-no-transcripts'];
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });
  afterEach(() => t.clock.reset());

  const endpoints = () => t.app.get(WebhookEndpointsService);
  const createEndpoint = (f: TestFirm, path: string, types = 'lead.created', description?: string) =>
    endpoints().create({ orgId: f.orgId, url: rx.url(path), eventTypes: types, description });
  const record = (orgId: string, type: 'call.completed' | 'lead.created' | 'lead.updated', data: Record<string, unknown> = {}) =>
    t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type, data }));
  const idle = () => t.app.get(DeliveryDispatcher).idle();
  const attempted = (eventIds: string[], count: number) => firstAttemptsRecorded(t.sql, eventIds, count);
  const waitStatus = (id: string, status: string) => deliveryReaches(t.sql, id, status);

  describe('GET /v1/webhook-endpoints', () => {
    it("lists the firm's endpoints newest first, with secret_last4 and never the secret", async () => {
      const f = await createFirm(t.app, { publish: false });
      const first = await createEndpoint(f, '/ep/1', 'lead.updated,call.completed', 'CRM');
      t.clock.advance(1000);
      const second = await createEndpoint(f, '/ep/2', 'lead.created');
      await createEndpoint(other, '/ep/theirs');
      const r = await t.get('/v1/webhook-endpoints', { key: f.keys['read-no-transcripts'] });
      expect(r.status).toBe(200);
      expect(r.body.endpoints.map((e: any) => e.id)).toEqual([second.endpoint.id, first.endpoint.id]);
      const e = r.body.endpoints[1];
      expect(Object.keys(e)).toEqual(ENDPOINT_KEYS);
      expect(e).toEqual({
        id: first.endpoint.id,
        url: rx.url('/ep/1'),
        description: 'CRM',
        event_types: ['call.completed', 'lead.updated'],
        status: 'enabled',
        disabled_reason: null,
        secret_last4: first.secret.slice(-4),
        last_success_at: null,
        last_failure_at: null,
        failing_since: null,
        created_at: expect.stringMatching(/Z$/),
        livemode: true,
      });
      expect(r.text).not.toContain(first.secret.slice(6));
      expect(r.text).not.toContain(second.secret.slice(6));
      // Stored encrypted: the secret does not appear in the row.
      const [row] = await t.sql(`SELECT secret_enc FROM webhook_endpoints WHERE id = $1`, [first.endpoint.id]);
      expect(row.secret_enc).toMatch(/^v1\./);
      expect(row.secret_enc).not.toContain(first.secret.slice(6));
    });

    it('refuses query parameters and keys without webhooks:read', async () => {
      expect((await t.get('/v1/webhook-endpoints', { key, query: { limit: '5' } })).body).toMatchObject({
        code: 'invalid_request',
        param: 'limit',
      });
      const f = await createFirm(t.app, { publish: false });
      await restrictKey(t, f.keyIds.read, ['org:read', 'webhooks:test']);
      const r = await t.get('/v1/webhook-endpoints', { key: f.keys.read });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'webhooks:read' });
    });
  });

  describe('GET /v1/webhook-deliveries', () => {
    let a: string;
    let eventId: string;
    beforeAll(async () => {
      a = (await createEndpoint(firm, '/list/a', 'lead.created')).endpoint.id;
      eventId = (await record(firm.orgId, 'lead.created', {})).envelope.id;
      await attempted([eventId], 1);
    });

    it("lists the firm's deliveries with the exact shape", async () => {
      const r = await t.get('/v1/webhook-deliveries', { key });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(r.body.deliveries).toHaveLength(1);
      expect(Object.keys(r.body.deliveries[0])).toEqual(DELIVERY_KEYS);
      expect(r.body.deliveries[0]).toMatchObject({
        endpoint_id: a,
        event_id: eventId,
        trigger: 'event',
        status: 'succeeded',
        attempt_count: 1,
      });
      expect(Object.keys(r.body.deliveries[0].attempts[0])).toEqual(['at', 'status_code', 'duration_ms', 'error', 'response_body']);
    });

    it('refuses bad parameters with 400 naming them, and keys without webhooks:read with 403', async () => {
      for (const [query, param] of [
        [{ endpoint_id: 'not-a-uuid' }, 'endpoint_id'],
        [{ event_id: 'event-1' }, 'event_id'],
        [{ status: 'done' }, 'status'],
        [{ limit: '0' }, 'limit'],
        [{ limit: '101' }, 'limit'],
        [{ after: 'x' }, 'after'],
        [{ cursor: 'garbage' }, 'cursor'],
      ] as [Record<string, string>, string][]) {
        const r = await t.get('/v1/webhook-deliveries', { key, query });
        expect({ status: r.status, param: r.body.param }).toEqual({ status: 400, param });
      }
      const f = await createFirm(t.app, { publish: false });
      await restrictKey(t, f.keyIds.read, ['org:read']);
      expect((await t.get('/v1/webhook-deliveries', { key: f.keys.read })).body).toMatchObject({ status: 403, code: 'insufficient_scope' });
    });
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
});
