import { AccountService } from '../../../src/account';
import { Database } from '../../../src/database/sql';
import { EventsService } from '../../../src/events';
import { MailWorkerModule } from '../../../src/mail';
import { DeliveryDispatcher, WebhookEndpointsService, WebhooksWorkerModule } from '../../../src/webhooks';
import { recordEvent } from '../../support/events';
import { createFirm, type TestFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';
import { behaviours, Receiver, waitFor } from '../../support/receiver';

const MIN = 60_000;
const DAY = 86_400_000;
const SCHEDULE = [MIN, 5 * MIN, 30 * MIN, 120 * MIN, 360 * MIN, 720 * MIN, 1440 * MIN];
const OPERATIONAL = 'webhook_endpoint.disabled,webhook_endpoint.enabled,webhook_delivery.exhausted,webhook_endpoint.recovered';

/**
 * Events about the webhooks themselves, from a real failing receiver through the real dispatcher: each is recorded in
 * the transaction of the change it reports, listed by GET /v1/events (and its `type` filter), delivered to another
 * endpoint subscribed to it (the monitor), and never sent to the endpoint it is about while that one is off.
 */
describe('events about the webhooks themselves', () => {
  let m: MediumService<DeliveryDispatcher>;
  let rx: Receiver;

  beforeAll(async () => {
    rx = await Receiver.start();
    m = await newMediumService(DeliveryDispatcher, {
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      imports: [WebhooksWorkerModule, MailWorkerModule],
    });
  });
  afterAll(async () => {
    await m.close();
    await rx.close();
  });
  afterEach(() => m.clock.reset());

  const endpoints = () => m.module.get(WebhookEndpointsService);
  const newFirm = async (): Promise<TestFirm> => {
    const f = await createFirm(m.module, { publish: false });
    await m.module.get(AccountService).updateOrg(f.orgId, { ownerEmail: `owner-${f.slug}@firm.example` });
    return f;
  };
  const endpoint = async (f: TestFirm, path: string, types: string) =>
    (await endpoints().create({ orgId: f.orgId, url: rx.url(path), eventTypes: types })).endpoint.id;
  const record = (orgId: string, type: 'call.completed' | 'lead.created', data: Record<string, unknown> = {}) =>
    m.module.get(Database).transaction((tx) => recordEvent(m.module.get(EventsService), tx, { orgId, type, data }));
  const advance = (ms: number) => {
    m.clock.advance(ms);
    m.sut.wake();
  };
  /** The firm's live events of one type, as GET /v1/events?type= lists them (once the log can list them). */
  const listed = async (f: TestFirm, type: string, count: number) =>
    waitFor(async () => {
      const page = await m.module.get(EventsService).list({ orgId: f.orgId, livemode: true }, { type: type as never, limit: 100 });
      return page.events.length >= count ? page.events : null;
    }, `${count} ${type} event(s) listed`);
  /** Committed events of a type (whether or not the log lists them yet): for what must not be there. */
  const countOf = async (f: TestFirm, type: string) =>
    (await m.sql(`SELECT count(*)::int AS n FROM events WHERE org_id = $1 AND type = $2`, [f.orgId, type]))[0].n as number;
  /** The bodies the receiver got at a path for events of a type. */
  const received = (path: string, type: string) =>
    rx
      .at(path)
      .map((r) => JSON.parse(r.body))
      .filter((b) => b.type === type);
  const deliveryOf = async (eventId: string, endpointId: string) =>
    (
      await m.sql(`SELECT status, attempt_count FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2`, [eventId, endpointId])
    )[0];
  const settled = (eventId: string, endpointId: string, check: (d: any) => boolean) =>
    waitFor(async () => {
      const [d] = await m.sql(
        `SELECT * FROM webhook_deliveries WHERE event_id = $1 AND endpoint_id = $2 AND id NOT IN (SELECT id FROM webhook_pending_deliveries WHERE locked_until IS NOT NULL) ORDER BY created_at DESC LIMIT 1`,
        [eventId, endpointId],
      );
      return d && check(d) ? d : null;
    }, `delivery of ${eventId}`);

  it('owner: disabled {endpoint_id, reason: "owner"} and enabled {endpoint_id}, sent to the monitor, never to the endpoint while it is off', async () => {
    const f = await newFirm();
    const watched = await endpoint(f, '/ops/watched', `call.completed,${OPERATIONAL}`);
    const monitor = await endpoint(f, '/ops/monitor', OPERATIONAL);
    await endpoints().disable(watched);
    await endpoints().disable(watched); // already off: no change, no second event
    expect(await countOf(f, 'webhook_endpoint.disabled')).toBe(1);
    const [disabled] = await listed(f, 'webhook_endpoint.disabled', 1);
    expect(disabled).toMatchObject({
      type: 'webhook_endpoint.disabled',
      test: false,
      livemode: true,
      data: { endpoint_id: watched, reason: 'owner' },
    });
    expect(Object.keys(disabled.data)).toEqual(['endpoint_id', 'reason']);
    await waitFor(() => received('/ops/monitor', 'webhook_endpoint.disabled').length === 1, 'the monitor to get the event');
    // The endpoint it is about was off: its delivery is the record of a miss, never sent.
    expect(await deliveryOf(disabled.id, watched)).toEqual({ status: 'failed', attempt_count: 0 });

    await endpoints().enable(watched);
    const [enabled] = await listed(f, 'webhook_endpoint.enabled', 1);
    expect(enabled.data).toEqual({ endpoint_id: watched });
    await waitFor(() => received('/ops/monitor', 'webhook_endpoint.enabled').length === 1, 'the monitor to get enabled');
    // On again: the endpoint itself, subscribed, is sent the news too.
    await waitFor(() => received('/ops/watched', 'webhook_endpoint.enabled').length === 1, 'the endpoint to get enabled');
    expect(received('/ops/watched', 'webhook_endpoint.disabled')).toEqual([]);
    // In the log, in order, each once; the type filter lists them alone.
    const all = (await m.module.get(EventsService).list({ orgId: f.orgId, livemode: true }, { limit: 100 })).events;
    expect(all.map((e) => e.type)).toEqual(['webhook_endpoint.disabled', 'webhook_endpoint.enabled']);
    expect(await endpoints().get({ orgId: f.orgId, livemode: true }, monitor)).toMatchObject({ status: 'enabled' });
  });

  it('a failing receiver: exhausted for each delivery out of attempts, disabled "failing" after 3 days, monitor told, the endpoint not', async () => {
    const f = await newFirm();
    rx.on('/ops/dying', behaviours.status(503, 'down'));
    const dying = await endpoint(f, '/ops/dying', `call.completed,${OPERATIONAL}`);
    const monitor = await endpoint(f, '/ops/watch-dying', OPERATIONAL);
    m.clock.advance(2 * DAY);
    const e = await record(f.orgId, 'call.completed', { call_id: 'call_ops_dying' });
    for (let i = 0; i < 7; i++) {
      await settled(e.envelope.id, dying, (x) => x.attempt_count === i + 1);
      advance(SCHEDULE[i]);
    }
    const d = await settled(e.envelope.id, dying, (x) => x.status === 'failed');
    expect(d.attempt_count).toBe(8);

    const [exhausted] = await listed(f, 'webhook_delivery.exhausted', 1);
    expect(exhausted.data).toEqual({ delivery_id: d.id, event_id: e.envelope.id, endpoint_id: dying, last_status_code: 503 });
    const [disabled] = await listed(f, 'webhook_endpoint.disabled', 1);
    expect(disabled.data).toEqual({ endpoint_id: dying, reason: 'failing' });
    const types = (await m.module.get(EventsService).list({ orgId: f.orgId, livemode: true }, { limit: 100 })).events.map((x) => x.type);
    expect(types).toEqual(['call.completed', 'webhook_delivery.exhausted', 'webhook_endpoint.disabled']);

    await waitFor(() => received('/ops/watch-dying', 'webhook_endpoint.disabled').length === 1, 'the monitor to be told');
    expect(received('/ops/watch-dying', 'webhook_delivery.exhausted').map((b) => b.data.delivery_id)).toEqual([d.id]);
    // The endpoint they are about turned off in the same transaction: neither was ever sent to it.
    for (const about of [exhausted, disabled]) expect(await deliveryOf(about.id, dying)).toEqual({ status: 'failed', attempt_count: 0 });
    expect(rx.at('/ops/dying').map((r) => JSON.parse(r.body).type)).toEqual(Array(8).fill('call.completed'));
    // The receiver has the body before the dispatcher records the answer: wait for the record, then read it.
    const toMonitor = await settled(exhausted.id, monitor, (x) => x.status !== 'pending');
    expect({ status: toMonitor.status, attempt_count: toMonitor.attempt_count }).toEqual({ status: 'succeeded', attempt_count: 1 });
  });

  it('410 Gone: disabled "gone"; a delivery that succeeds after failures: recovered {endpoint_id, failing_since}, once', async () => {
    const f = await newFirm();
    rx.on('/ops/flaky', behaviours.status(500, 'boom'));
    const flaky = await endpoint(f, '/ops/flaky', 'lead.created');
    await endpoint(f, '/ops/watch-flaky', OPERATIONAL);
    const e = await record(f.orgId, 'lead.created', { lead_id: 'lead_ops' });
    const first = await settled(e.envelope.id, flaky, (x) => x.attempt_count === 1);
    const failingSince = first.attempts[0].at;
    expect((await endpoints().get({ orgId: f.orgId, livemode: true }, flaky)).failing_since).toBe(failingSince);
    advance(SCHEDULE[0]);
    await settled(e.envelope.id, flaky, (x) => x.attempt_count === 2);
    rx.on('/ops/flaky', behaviours.status(200));
    advance(SCHEDULE[1]);
    await settled(e.envelope.id, flaky, (x) => x.status === 'succeeded');
    const [recovered] = await listed(f, 'webhook_endpoint.recovered', 1);
    expect(recovered.data).toEqual({ endpoint_id: flaky, failing_since: failingSince });
    await waitFor(() => received('/ops/watch-flaky', 'webhook_endpoint.recovered').length === 1, 'the monitor to hear of it');
    // Another success while healthy is no recovery.
    const again = await record(f.orgId, 'lead.created', { lead_id: 'lead_ops_2' });
    await settled(again.envelope.id, flaky, (x) => x.status === 'succeeded');
    expect(await countOf(f, 'webhook_endpoint.recovered')).toBe(1);

    rx.on('/ops/flaky', behaviours.status(410, 'gone for good'));
    const last = await record(f.orgId, 'lead.created', { lead_id: 'lead_ops_3' });
    await settled(last.envelope.id, flaky, (x) => x.status === 'failed');
    const [disabled] = await listed(f, 'webhook_endpoint.disabled', 1);
    expect(disabled.data).toEqual({ endpoint_id: flaky, reason: 'gone' });
    // A 410 is not a delivery out of attempts: no exhausted event.
    expect(await countOf(f, 'webhook_delivery.exhausted')).toBe(0);
    await waitFor(() => received('/ops/watch-flaky', 'webhook_endpoint.disabled').length === 1, 'the monitor to hear of it');
  });

  it('a test-mode endpoint’s events are test-mode events: read by test keys, sent to test endpoints only', async () => {
    const f = await newFirm();
    const testEndpoint = (
      await endpoints().create({ orgId: f.orgId, url: rx.url('/ops/test'), eventTypes: 'call.completed', livemode: false })
    ).endpoint.id;
    const testMonitor = (
      await endpoints().create({ orgId: f.orgId, url: rx.url('/ops/test-monitor'), eventTypes: OPERATIONAL, livemode: false })
    ).endpoint.id;
    const liveMonitor = await endpoint(f, '/ops/live-monitor', OPERATIONAL);
    await endpoints().disable(testEndpoint);
    const page = await waitFor(async () => {
      const p = await m.module
        .get(EventsService)
        .list({ orgId: f.orgId, livemode: false }, { type: 'webhook_endpoint.disabled', limit: 10 });
      return p.events.length ? p : null;
    }, 'the test-mode event');
    expect(page.events[0]).toMatchObject({ livemode: false, data: { endpoint_id: testEndpoint, reason: 'owner' } });
    await waitFor(() => received('/ops/test-monitor', 'webhook_endpoint.disabled').length === 1, 'the test monitor to hear of it');
    expect((await m.module.get(EventsService).list({ orgId: f.orgId, livemode: true }, { limit: 10 })).events).toEqual([]);
    expect(await m.sql(`SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1`, [liveMonitor])).toEqual([]);
    expect(testMonitor).toBeTruthy();
  });
});
