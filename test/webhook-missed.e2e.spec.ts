import { Database } from '../src/database/sql';
import { AccountService } from '../src/account';
import { RetentionRunner } from '../src/common/retention/retention-runner';
import { EventsService } from '../src/events';
import { DeliveryDispatcher, WebhookEndpointsService } from '../src/webhooks';
import { createFirm, type TestFirm } from './support/factories';
import { behaviours, Receiver, waitFor } from './support/receiver';
import { startSmtp } from './support/smtp';
import { recordEvent } from './support/events';
import { startTestApp, type TestApp } from './support/test-app';

const DAY = 86_400_000;

/**
 * Delivery rule 7: events produced while an endpoint is off are not sent
 * again automatically, but can be resent individually. Each leaves a failed
 * delivery with no attempts to that endpoint, which redeliver resends once
 * the endpoint is back on.
 */
describe('deliveries an endpoint missed while it was off', () => {
  let t: TestApp;
  let rx: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    rx = await Receiver.start();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
    await smtp.close();
  });
  afterEach(() => t.clock.reset());

  const newFirm = async (): Promise<TestFirm> => {
    const f = await createFirm(t.app, { publish: false });
    await t.app.get(AccountService).updateOrg(f.orgId, { ownerEmail: `owner-${f.slug}@firm.example` });
    return f;
  };
  const endpoints = () => t.app.get(WebhookEndpointsService);
  const dispatcher = () => t.app.get(DeliveryDispatcher);
  const offEndpoint = async (f: TestFirm, path: string, types = 'lead.created') => {
    const { endpoint } = await endpoints().create({ orgId: f.orgId, url: rx.url(path), eventTypes: types });
    await endpoints().disable(endpoint.id);
    return endpoint.id;
  };
  const record = (orgId: string, type: 'lead.created' | 'lead.updated' | 'webhook.test', data: Record<string, unknown> = {}) =>
    t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type, data }));
  const listed = async (f: TestFirm, query: Record<string, string>) =>
    (await t.get('/v1/webhook-deliveries', { key: f.keys.read, query })).body.deliveries;
  const redeliver = (f: TestFirm, id: string) => t.request('POST', `/v1/webhook-deliveries/${id}/redeliver`, { key: f.keys.read });

  it('records, with the event, a failed delivery with no attempts for each subscribed endpoint that is off; nothing is sent', async () => {
    const f = await newFirm();
    const on = (await endpoints().create({ orgId: f.orgId, url: rx.url('/missed/on'), eventTypes: 'lead.created' })).endpoint.id;
    const off = await offEndpoint(f, '/missed/off');
    await offEndpoint(f, '/missed/unsubscribed', 'lead.updated');

    let eventId = '';
    await t.app.get(Database).transaction(async (m) => {
      eventId = (await recordEvent(t.app.get(EventsService), m, { orgId: f.orgId, type: 'lead.created', data: { lead_id: 'lead_m' } }))
        .envelope.id;
      const inside = await m.query(`SELECT endpoint_id, status, trigger FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
      expect(inside).toHaveLength(2);
      expect(inside).toEqual(
        expect.arrayContaining([
          { endpoint_id: on, status: 'pending', trigger: 'event' },
          { endpoint_id: off, status: 'failed', trigger: 'event' },
        ]),
      );
    });
    const event = (await t.get(`/v1/events/${eventId}`, { key: f.keys.read })).body;
    const [missed] = await listed(f, { endpoint_id: off });
    expect(missed).toEqual({
      id: expect.any(String),
      endpoint_id: off,
      event_id: eventId,
      event_type: 'lead.created',
      trigger: 'event',
      status: 'failed',
      attempt_count: 0,
      attempts: [],
      next_attempt_at: null,
      completed_at: event.timestamp,
      created_at: event.timestamp,
    });
    expect((await listed(f, { status: 'failed' })).map((d: any) => d.id)).toEqual([missed.id]);

    // Never claimed, however much later: it is not pending.
    await waitFor(async () => (await listed(f, { endpoint_id: on }))[0]?.status === 'succeeded', 'the delivery to the endpoint that is on');
    t.clock.advance(2 * DAY);
    dispatcher().wake();
    await dispatcher().idle();
    expect(rx.at('/missed/off')).toEqual([]);
    expect(await listed(f, { endpoint_id: off })).toEqual([missed]);
    const [row] = await t.sql(`SELECT locked_until, claim_token FROM webhook_deliveries WHERE id = $1`, [missed.id]);
    expect(row).toEqual({ locked_until: null, claim_token: null });
  });

  it('sends no owner email and leaves the endpoint health alone', async () => {
    const f = await newFirm();
    const off = await offEndpoint(f, '/missed/health');
    for (let i = 0; i < 3; i++) {
      await record(f.orgId, 'lead.created', { i });
      t.clock.advance(2 * DAY);
    }
    dispatcher().wake();
    await dispatcher().idle();
    expect(await listed(f, { endpoint_id: off })).toHaveLength(3);
    const ep = (await t.get('/v1/webhook-endpoints', { key: f.keys.read })).body.endpoints.find((e: any) => e.id === off);
    expect(ep).toMatchObject({ status: 'disabled', disabled_reason: 'owner', last_failure_at: null, failing_since: null });
    expect(await t.sql(`SELECT kind FROM mail_outbox WHERE org_id = $1`, [f.orgId])).toEqual([]);
    expect(smtp.mails.filter((m) => m.to.includes(`owner-${f.slug}@firm.example`))).toEqual([]);
  });

  it('redeliver resends it: 409 while the endpoint is off, then a new delivery of the same event once it is on', async () => {
    const f = await newFirm();
    const off = await offEndpoint(f, '/missed/resend');
    const e = await record(f.orgId, 'lead.created', { lead_id: 'lead_r' });
    const [missed] = await listed(f, { endpoint_id: off });

    const refused = await redeliver(f, missed.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'endpoint_disabled', disabled_reason: 'owner' });

    await endpoints().enable(off);
    const r = await redeliver(f, missed.id);
    expect(r.status).toBe(202);
    expect(r.body.delivery).toMatchObject({ endpoint_id: off, event_id: e.envelope.id, trigger: 'redelivery', status: 'pending' });
    const posts = await waitFor(() => (rx.at('/missed/resend').length === 1 ? rx.at('/missed/resend') : null), 'the resend');
    expect(posts[0].headers['webhook-id']).toBe(e.envelope.id);
    expect(posts[0].body).toBe((await t.get(`/v1/events/${e.envelope.id}`, { key: f.keys.read })).text);
    await waitFor(async () => (await listed(f, { endpoint_id: off }))[0].status === 'succeeded', 'the resend recorded');
    const both = await listed(f, { endpoint_id: off });
    expect(both.map((d: any) => d.trigger)).toEqual(['redelivery', 'event']);
    expect(both[1]).toEqual(missed);
  });

  it('missed deliveries do not count toward the 5 resends a minute; their resends do', async () => {
    t.clock.freeze();
    rx.on('/missed/limit', behaviours.status(200));
    const f = await newFirm();
    const off = await offEndpoint(f, '/missed/limit');
    for (let i = 0; i < 6; i++) await record(f.orgId, 'lead.created', { i });
    await endpoints().enable(off);
    const missed = await listed(f, { endpoint_id: off });
    expect(missed).toHaveLength(6);
    const statuses = [];
    for (const d of missed) statuses.push((await redeliver(f, d.id)).status);
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
    await dispatcher().idle();
  });

  it('webhook.test events leave no missed delivery; missed deliveries are kept 30 days like the others', async () => {
    const f = await newFirm();
    const off = await offEndpoint(f, '/missed/kept');
    const test = await record(f.orgId, 'webhook.test', { endpoint_id: off, message: 'x' });
    expect(await t.sql(`SELECT 1 FROM webhook_deliveries WHERE event_id = $1`, [test.envelope.id])).toEqual([]);
    await record(f.orgId, 'lead.created', {});
    t.clock.advance(30 * DAY - 60_000);
    await t.app.get(RetentionRunner).run('webhook_deliveries');
    expect(await listed(f, { endpoint_id: off })).toHaveLength(1);
    // Gone once its whole day is past the 30 days (retention drops a day's partition at a time).
    t.clock.advance(DAY + 2 * 60_000);
    await t.app.get(RetentionRunner).run('webhook_deliveries');
    expect(await t.sql(`SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1`, [off])).toEqual([]);
  });
});
