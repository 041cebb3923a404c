import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { DeliveryDispatcher, WebhookEndpointsService } from '../../src/webhooks';
import { deliveryReaches, firstAttemptsRecorded } from '../support/deliveries';
import { recordEvent, restrictKey } from '../support/events';
import { createFirm, type TestFirm } from '../support/factories';
import { Receiver } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';
import { actionCases } from './webhook-api/actions';
import { idempotencyCases } from './webhook-api/idempotency';

const ENDPOINT_KEYS = [
  'id',
  'url',
  'description',
  'event_types',
  'status',
  'disabled_reason',
  'secret_last4',
  'signature',
  'public_key',
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
 * sends, the window's arithmetic) are tested on the services: test/medium/delivery/webhooks.cases.ts. The actions (test,
 * redeliver, their rate limit) are in ./webhook-api/actions.ts.
 *
 * An app of its own: the cases move its clock.
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
        signature: 'v1',
        public_key: null,
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

  actionCases(() => ({ t, other, endpoints, createEndpoint, record, idle, attempted, waitStatus }));
  idempotencyCases(() => ({ t, other, endpoints, createEndpoint, record, idle, attempted, waitStatus }));
});
