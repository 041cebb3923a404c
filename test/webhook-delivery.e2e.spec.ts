import { Webhook } from 'standardwebhooks';
import { Database } from '../src/database/sql';
import { AccountService } from '../src/account';
import { EventsService } from '../src/events';
import { RetentionRunner } from '../src/common/retention/retention-runner';
import { DeliveryDispatcher, WebhookEndpointsService } from '../src/webhooks';
import { createFirm, type TestFirm } from './support/factories';
import { behaviours, Receiver, waitFor } from './support/receiver';
import { mailText, startSmtp } from './support/smtp';
import { startTestApp, type TestApp } from './support/test-app';
import { recordEvent } from './support/events';

const MIN = 60_000;
const DAY = 86_400_000;
const SCHEDULE = [MIN, 5 * MIN, 30 * MIN, 120 * MIN, 360 * MIN, 720 * MIN, 1440 * MIN];

describe('webhook delivery', () => {
  let t: TestApp;
  let rx: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;

  beforeAll(async () => {
    smtp = await startSmtp();
    rx = await Receiver.start();
    t = await startTestApp({
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', SMTP_URL: smtp.url, MAIL_FROM: 'Receptionist <hooks@service.example>' },
    });
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
  const createEndpoint = (f: TestFirm, path: string, types: string) =>
    endpoints().create({ orgId: f.orgId, url: rx.url(path), eventTypes: types });
  const record = (
    orgId: string,
    type: 'call.completed' | 'lead.created' | 'lead.updated' | 'webhook.test',
    data: Record<string, unknown> = {},
  ) => t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type, data }));
  const advance = (ms: number) => {
    t.clock.advance(ms);
    dispatcher().wake();
  };
  /** The stored delivery once no worker holds it. */
  const settled = async (eventId: string, endpointId: string, check: (d: any) => boolean = () => true) =>
    waitFor(async () => {
      const [d] = await t.sql(
        `SELECT * FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2 AND locked_until IS NULL ORDER BY created_at DESC LIMIT 1`,
        [eventId, endpointId],
      );
      return d && check(d) ? d : null;
    }, `delivery of ${eventId}`);
  const apiDelivery = async (f: TestFirm, eventId: string, endpointId: string) =>
    (await t.get('/v1/webhook-deliveries', { key: f.keys.read, query: { event_id: eventId, endpoint_id: endpointId } })).body.deliveries[0];
  const apiEndpoint = async (f: TestFirm, id: string) =>
    (await t.get('/v1/webhook-endpoints', { key: f.keys.read })).body.endpoints.find((e: any) => e.id === id);

  it('fans out in the recording transaction: one pending delivery per enabled endpoint subscribed to the type, a failed one per disabled', async () => {
    const f = await newFirm();
    const other = await newFirm();
    const a = await createEndpoint(f, '/fan/a', 'lead.created,call.completed');
    const b = await createEndpoint(f, '/fan/b', 'lead.created');
    await createEndpoint(f, '/fan/c', 'lead.updated');
    const d = await createEndpoint(f, '/fan/d', 'lead.created');
    await endpoints().disable(d.endpoint.id);
    await createEndpoint(other, '/fan/other', 'lead.created');

    let eventId = '';
    await t.app.get(Database).transaction(async (m) => {
      const e = await recordEvent(t.app.get(EventsService), m, { orgId: f.orgId, type: 'lead.created', data: { lead_id: 'lead_fan' } });
      eventId = e.envelope.id;
      const inside = await m.query(
        `SELECT endpoint_id, status, trigger, event_type, attempt_count FROM webhook_deliveries WHERE event_id = $1 ORDER BY endpoint_id`,
        [eventId],
      );
      expect(inside).toEqual(
        [a.endpoint.id, b.endpoint.id, d.endpoint.id].sort().map((endpoint_id) => ({
          endpoint_id,
          // The disabled endpoint's is the record of what it missed: never sent, redeliverable once it is back on.
          status: endpoint_id === d.endpoint.id ? 'failed' : 'pending',
          trigger: 'event',
          event_type: 'lead.created',
          attempt_count: 0,
        })),
      );
      // Not visible (nor sendable) before the commit.
      expect(await t.sql(`SELECT 1 FROM webhook_deliveries WHERE event_id = $1`, [eventId])).toEqual([]);
    });
    await settled(eventId, a.endpoint.id, (x) => x.status === 'succeeded');
    await settled(eventId, b.endpoint.id, (x) => x.status === 'succeeded');
    expect(rx.at('/fan/a').length + rx.at('/fan/b').length).toBe(2);
    expect(rx.at('/fan/c').length + rx.at('/fan/d').length + rx.at('/fan/other').length).toBe(0);

    // A rolled-back change leaves neither event nor delivery.
    await expect(
      t.app.get(Database).transaction(async (m) => {
        const e = await recordEvent(t.app.get(EventsService), m, { orgId: f.orgId, type: 'lead.created', data: {} });
        eventId = e.envelope.id;
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(
      await t.sql(`SELECT 1 FROM webhook_deliveries WHERE event_id = $1 UNION ALL SELECT 1 FROM events WHERE id = $1`, [eventId]),
    ).toEqual([]);

    // webhook.test events are never fanned out; events are recorded without endpoints too.
    const test = await record(f.orgId, 'webhook.test', { endpoint_id: a.endpoint.id, message: 'x' });
    const lonely = await record(other.orgId, 'call.completed', { call_id: 'call_1' });
    expect(await t.sql(`SELECT 1 FROM webhook_deliveries WHERE event_id = ANY($1)`, [[test.envelope.id, lonely.envelope.id]])).toEqual([]);
    expect(await t.sql(`SELECT count(*)::int AS n FROM events WHERE id = ANY($1)`, [[test.envelope.id, lonely.envelope.id]])).toEqual([
      { n: 2 },
    ]);
  });

  it('POSTs the exact event JSON, signed (verified with standardwebhooks), within a second of the commit', async () => {
    const f = await newFirm();
    const { endpoint, secret } = await createEndpoint(f, '/signed', 'lead.created');
    const before = Date.now();
    const e = await record(f.orgId, 'lead.created', {
      lead_id: 'lead_s',
      call_id: 'call_s',
      status: 'new',
      category: null,
      urgency: 'high',
      url: 'http://api.test/v1/leads/lead_s',
    });
    const got = await waitFor(() => rx.at('/signed')[0], 'the POST');
    expect(got.at - before).toBeLessThan(1000);

    const listed = await t.get(`/v1/events/${e.envelope.id}`, { key: f.keys.read });
    expect(got.body).toBe(listed.text);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe(e.envelope.id);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(listed.body);
    expect(() => new Webhook(secret).verify(got.body + ' ', got.headers as Record<string, string>)).toThrow();

    await settled(e.envelope.id, endpoint.id, (d) => d.status === 'succeeded');
    const d = await apiDelivery(f, e.envelope.id, endpoint.id);
    expect(d).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      endpoint_id: endpoint.id,
      event_id: e.envelope.id,
      event_type: 'lead.created',
      trigger: 'event',
      status: 'succeeded',
      attempt_count: 1,
      attempts: [{ at: expect.any(String), status_code: 200, duration_ms: expect.any(Number), error: null, response_body: 'ok' }],
      next_attempt_at: null,
      completed_at: d.attempts[0].at,
      created_at: e.envelope.timestamp,
    });
    expect(await apiEndpoint(f, endpoint.id)).toMatchObject({
      last_success_at: d.attempts[0].at,
      last_failure_at: null,
      failing_since: null,
      status: 'enabled',
    });
  });

  it('retries on the schedule, 8 attempts in total, then fails and emails the owner; same webhook-id, fresh signature each time', async () => {
    const f = await newFirm();
    rx.on('/flaky', behaviours.status(500, 'boom'));
    const { endpoint, secret } = await createEndpoint(f, '/flaky', 'lead.updated');
    const e = await record(f.orgId, 'lead.updated', { lead_id: 'lead_r', changes: ['status'] });
    for (let i = 0; i < 8; i++) {
      if (i > 0) advance(SCHEDULE[i - 1]);
      const d = await settled(e.envelope.id, endpoint.id, (x) => x.attempt_count === i + 1);
      const attempt = d.attempts[i];
      expect(attempt).toEqual({
        at: expect.any(String),
        status_code: 500,
        duration_ms: expect.any(Number),
        error: null,
        response_body: 'boom',
      });
      if (i < 7) {
        expect(d.status).toBe('pending');
        // The wait counts from the attempt's end: after its start and duration, before this read.
        expect(d.next_attempt_at.getTime() - SCHEDULE[i]).toBeGreaterThanOrEqual(new Date(attempt.at).getTime() + attempt.duration_ms - 5);
        expect(d.next_attempt_at.getTime() - SCHEDULE[i]).toBeLessThanOrEqual(t.clock.now().getTime());
        expect(d.completed_at).toBeNull();
      } else {
        expect(d.status).toBe('failed');
        expect(d.next_attempt_at).toBeNull();
        expect(d.completed_at.toISOString()).toBe(attempt.at);
      }
    }
    const posts = rx.at('/flaky');
    expect(posts).toHaveLength(8);
    expect(new Set(posts.map((p) => p.headers['webhook-id']))).toEqual(new Set([e.envelope.id]));
    expect(new Set(posts.map((p) => p.headers['webhook-timestamp'])).size).toBe(8);
    for (const p of posts) {
      const ts = Number(p.headers['webhook-timestamp']);
      expect(p.headers['webhook-signature']).toBe(new Webhook(secret).sign(e.envelope.id, new Date(ts * 1000), p.body));
    }
    const d = await apiDelivery(f, e.envelope.id, endpoint.id);
    expect(d.attempts).toHaveLength(8);
    // 44.6 hours of failures: still on, but its health shows the run.
    expect(await apiEndpoint(f, endpoint.id)).toMatchObject({
      status: 'enabled',
      disabled_reason: null,
      last_success_at: null,
      last_failure_at: d.attempts[7].at,
      failing_since: d.attempts[0].at,
    });
    const mail = await waitFor(() => smtp.mails.find((m) => m.to.includes(`owner-${f.slug}@firm.example`)), 'the owner email');
    expect(mail.from).toBe('hooks@service.example');
    expect(mail.raw).toMatch(/^Subject: A webhook delivery failed/m);
    const text = mailText(mail.raw);
    expect(text).toContain(e.envelope.id);
    expect(text).toContain(d.id);
    expect(text).toContain(endpoint.id);
    expect(text).not.toContain(secret.slice(6, 20));
  });

  it('turns the endpoint off (failing) when a delivery runs out after 3 days without success, emails twice, closes what is pending', async () => {
    const f = await newFirm();
    rx.on('/dying', behaviours.status(503, 'down'));
    const { endpoint } = await createEndpoint(f, '/dying', 'call.completed');
    t.clock.advance(2 * DAY);
    const e1 = await record(f.orgId, 'call.completed', { call_id: 'call_d1' });
    for (let i = 0; i < 6; i++) {
      await settled(e1.envelope.id, endpoint.id, (x) => x.attempt_count === i + 1);
      advance(SCHEDULE[i]);
    }
    await settled(e1.envelope.id, endpoint.id, (x) => x.attempt_count === 7);
    // Another delivery is waiting for its retry when the first one runs out.
    const e2 = await record(f.orgId, 'call.completed', { call_id: 'call_d2' });
    const first = await settled(e2.envelope.id, endpoint.id, (x) => x.attempt_count === 1);
    expect(first.status).toBe('pending');
    advance(SCHEDULE[6]);
    const d1 = await settled(e1.envelope.id, endpoint.id, (x) => x.status === 'failed');
    expect(d1.attempt_count).toBe(8);

    const ep = await apiEndpoint(f, endpoint.id);
    expect(ep).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });
    // Its retry was due together with the last attempt: sent once more at most (in flight as it turned off), then closed.
    const d2 = await settled(e2.envelope.id, endpoint.id, (x) => x.status === 'failed');
    expect([1, 2]).toContain(d2.attempt_count);
    expect(d2.next_attempt_at).toBeNull();

    const mails = await waitFor(() => {
      const m = smtp.mails.filter((x) => x.to.includes(`owner-${f.slug}@firm.example`));
      return m.length >= 2 ? m : null;
    }, 'two owner emails');
    expect(mails.map((m) => /^Subject: (.*)$/m.exec(m.raw)![1]).sort()).toEqual([
      'A webhook delivery failed',
      'A webhook endpoint was turned off',
    ]);
    expect(mailText(mails.find((m) => /turned off/.test(m.raw))!.raw)).toContain('no successful delivery for 3 days');

    // Off: nothing new is sent, even much later; the event leaves only the record that it was missed.
    const before = rx.at('/dying').length;
    const e3 = await record(f.orgId, 'call.completed', { call_id: 'call_d3' });
    advance(DAY);
    await dispatcher().idle();
    expect(await t.sql(`SELECT status, attempt_count FROM webhook_deliveries WHERE event_id = $1`, [e3.envelope.id])).toEqual([
      { status: 'failed', attempt_count: 0 },
    ]);
    expect(rx.at('/dying').length).toBe(before);
  });

  it('a 410 turns the endpoint off at once (gone): no retry, pending deliveries closed, owner emailed', async () => {
    const f = await newFirm();
    rx.on('/gone', behaviours.status(500));
    const { endpoint } = await createEndpoint(f, '/gone', 'lead.created');
    const e1 = await record(f.orgId, 'lead.created', { lead_id: 'lead_g1' });
    await settled(e1.envelope.id, endpoint.id, (x) => x.attempt_count === 1 && x.status === 'pending');
    rx.on('/gone', behaviours.status(410, 'no such hook'));
    const e2 = await record(f.orgId, 'lead.created', { lead_id: 'lead_g2' });
    const d2 = await settled(e2.envelope.id, endpoint.id, (x) => x.status === 'failed');
    expect(d2.attempt_count).toBe(1);
    expect(d2.attempts[0]).toMatchObject({ status_code: 410, response_body: 'no such hook' });
    expect(await apiEndpoint(f, endpoint.id)).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    const d1 = await settled(e1.envelope.id, endpoint.id);
    expect(d1).toMatchObject({ status: 'failed', attempt_count: 1, next_attempt_at: null });
    const mail = await waitFor(() => smtp.mails.find((m) => m.to.includes(`owner-${f.slug}@firm.example`)), 'the gone email');
    expect(mailText(mail.raw)).toContain('410 Gone');
    advance(10 * MIN);
    await dispatcher().idle();
    expect(rx.at('/gone')).toHaveLength(2);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const f = await newFirm();
    rx.on('/moved', behaviours.status(302, '', { location: rx.url('/moved-here') }));
    const { endpoint } = await createEndpoint(f, '/moved', 'lead.created');
    const e = await record(f.orgId, 'lead.created', {});
    const d = await settled(e.envelope.id, endpoint.id, (x) => x.attempt_count === 1);
    expect(d.status).toBe('pending');
    expect(d.attempts[0]).toMatchObject({ status_code: 302, error: 'redirect not followed' });
    expect(rx.at('/moved-here')).toEqual([]);
    await endpoints().disable(endpoint.id);
  });

  it('a refused connection is a failed attempt with its error', async () => {
    const f = await newFirm();
    const { endpoint } = await endpoints().create({ orgId: f.orgId, url: 'http://127.0.0.1:1/hook', eventTypes: 'lead.created' });
    const e = await record(f.orgId, 'lead.created', {});
    const d = await settled(e.envelope.id, endpoint.id, (x) => x.attempt_count === 1);
    expect(d.attempts[0]).toEqual({
      at: expect.any(String),
      status_code: null,
      duration_ms: expect.any(Number),
      error: 'refused connection',
      response_body: null,
    });
    await endpoints().disable(endpoint.id);
  });

  it('a disabled endpoint sends nothing, and what happened while it was off is not sent later', async () => {
    const f = await newFirm();
    rx.on('/off', behaviours.status(500));
    const { endpoint } = await createEndpoint(f, '/off', 'lead.created');
    const e1 = await record(f.orgId, 'lead.created', { n: 1 });
    await settled(e1.envelope.id, endpoint.id, (x) => x.attempt_count === 1 && x.status === 'pending');
    const off = await endpoints().disable(endpoint.id);
    expect(off).toMatchObject({ status: 'disabled', disabled_reason: 'owner' });
    expect(await settled(e1.envelope.id, endpoint.id)).toMatchObject({ status: 'failed', attempt_count: 1, next_attempt_at: null });
    const e2 = await record(f.orgId, 'lead.created', { n: 2 });
    rx.on('/off', behaviours.status(200));
    expect(await endpoints().enable(endpoint.id)).toMatchObject({ status: 'enabled', disabled_reason: null, failing_since: null });
    advance(DAY);
    await dispatcher().idle();
    expect(rx.at('/off')).toHaveLength(1);
    expect(await t.sql(`SELECT status, attempt_count FROM webhook_deliveries WHERE event_id = $1`, [e2.envelope.id])).toEqual([
      { status: 'failed', attempt_count: 0 },
    ]);
    const e3 = await record(f.orgId, 'lead.created', { n: 3 });
    await settled(e3.envelope.id, endpoint.id, (x) => x.status === 'succeeded');
    expect(rx.at('/off').map((p) => JSON.parse(p.body).data.n)).toEqual([1, 3]);
  });

  it('reconnects its LISTEN connection and keeps delivering within a second', async () => {
    const listeners = () =>
      t.sql(`SELECT pid FROM pg_stat_activity WHERE application_name = 'webhook-dispatcher' AND datname = current_database()`);
    const [old] = await waitFor(async () => ((await listeners()).length === 1 ? await listeners() : null), 'the listener');
    await t.sql(`SELECT pg_terminate_backend($1)`, [old.pid]);
    await waitFor(
      async () => {
        const now = await listeners();
        return now.length === 1 && now[0].pid !== old.pid;
      },
      'a new listener',
      5000,
    );
    const f = await newFirm();
    const { endpoint } = await createEndpoint(f, '/relisten', 'lead.created');
    const before = Date.now();
    const e = await record(f.orgId, 'lead.created', {});
    await waitFor(() => rx.at('/relisten')[0], 'the POST');
    expect(rx.at('/relisten')[0].at - before).toBeLessThan(1000);
    await settled(e.envelope.id, endpoint.id, (x) => x.status === 'succeeded');
  });

  it('two dispatchers on one database send each delivery exactly once', async () => {
    const t2 = await startTestApp({ databaseUrl: t.databaseUrl, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    try {
      const f = await newFirm();
      const a = await createEndpoint(f, '/pair/a', 'call.completed');
      const b = await createEndpoint(f, '/pair/b', 'call.completed');
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) ids.push((await record(f.orgId, 'call.completed', { i })).envelope.id);
      await waitFor(
        async () =>
          (await t.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1) AND status = 'succeeded'`, [ids]))[0]
            .n === 200,
        'all 200',
        10000,
      );
      for (const path of ['/pair/a', '/pair/b']) {
        const got = rx.at(path).map((p) => p.headers['webhook-id']);
        expect(got).toHaveLength(100);
        expect(new Set(got)).toEqual(new Set(ids));
      }
      const byWorker = await t.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1) AND attempt_count <> 1`, [
        ids,
      ]);
      expect(byWorker).toEqual([{ n: 0 }]);
      expect([a.endpoint.id, b.endpoint.id]).toHaveLength(2);
    } finally {
      await t2.close();
    }
  });

  it('retention drops the day of deliveries once the whole day is older than 30 days', async () => {
    const f = await newFirm();
    const oldDay = `webhook_deliveries_p${t.clock.now().toISOString().slice(0, 10).replaceAll('-', '')}`;
    await t.app.get(RetentionRunner).run('webhook_deliveries'); // today's partition exists wherever earlier tests left the clock
    const { endpoint } = await createEndpoint(f, '/kept', 'lead.created');
    const old = await record(f.orgId, 'lead.created', {});
    await settled(old.envelope.id, endpoint.id, (x) => x.status === 'succeeded');
    t.clock.advance(20 * DAY);
    const young = await record(f.orgId, 'lead.created', {});
    await settled(young.envelope.id, endpoint.id, (x) => x.status === 'succeeded');
    t.clock.advance(11 * DAY);
    const run = await t.app.get(RetentionRunner).run('webhook_deliveries', 1);
    expect(run.dropped).toContain(oldDay);
    const left = await t.sql(`SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id]);
    expect(left).toEqual([{ event_id: young.envelope.id }]);
    const listed = await t.get('/v1/webhook-deliveries', { key: f.keys.read, query: { endpoint_id: endpoint.id } });
    expect(listed.body.deliveries.map((d: any) => d.event_id)).toEqual([young.envelope.id]);
  });
});
