import { Database } from '../src/database/sql';
import { EventsService } from '../src/events';
import { DeliveryDispatcher, WebhookEndpointsService } from '../src/webhooks';
import { createFirm } from './support/factories';
import { behaviours, Receiver, waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';
import { startSelfSignedHttps } from './support/tls';
import { recordEvent } from './support/events';

/**
 * Receivers that hang, answer slowly, send an endless body, drop the
 * connection, or present a bad certificate: each costs exactly one attempt
 * and none holds up the others.
 */
describe('misbehaving receivers', () => {
  let t: TestApp;
  let rx: Receiver;
  let tls: Awaited<ReturnType<typeof startSelfSignedHttps>>;
  beforeAll(async () => {
    rx = await Receiver.start();
    tls = await startSelfSignedHttps();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
    await tls.close();
  });

  it('each costs one attempt with its error, and never stalls the others', async () => {
    const huge = { written: 0, closed: false };
    rx.on('/hang', behaviours.hang())
      .on('/slow', behaviours.slow(1500))
      .on('/huge', behaviours.huge(huge))
      .on('/reset', behaviours.reset());
    const f1 = await createFirm(t.app, { publish: false });
    const f2 = await createFirm(t.app, { publish: false });
    const svc = t.app.get(WebhookEndpointsService);
    const ep: Record<string, string> = {};
    for (const path of ['/hang', '/slow', '/huge', '/reset', '/good']) {
      ep[path] = (await svc.create({ orgId: f1.orgId, url: rx.url(path), eventTypes: 'call.completed' })).endpoint.id;
    }
    ep.tls = (await svc.create({ orgId: f2.orgId, url: `https://127.0.0.1:${tls.port}/hook`, eventTypes: 'call.completed' })).endpoint.id;
    const record = (orgId: string) =>
      t.app
        .get(Database)
        .transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type: 'call.completed', data: { call_id: 'call_m' } }));
    const started = Date.now();
    const e1 = await record(f1.orgId);
    const e2 = await record(f2.orgId);
    const row = async (endpointId: string) =>
      (
        await t.sql(`SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND event_id = ANY($2)`, [
          endpointId,
          [e1.envelope.id, e2.envelope.id],
        ])
      )[0];
    const recorded = (endpointId: string, timeoutMs = 5000) =>
      waitFor(
        async () => {
          const d = await row(endpointId);
          return d.attempt_count === 1 && d.locked_until === null ? d : null;
        },
        `the attempt to ${endpointId}`,
        timeoutMs,
      );

    const good = await recorded(ep['/good']);
    expect(good.status).toBe('succeeded');
    // Sent before the hanging receiver's 10 s deadline could have freed anything: it was not held up behind it.
    expect(new Date(good.attempts[0].at).getTime() - started).toBeLessThan(9_000);
    // The hanging receiver is still being waited for, and held nothing up.
    expect((await row(ep['/hang'])).attempt_count).toBe(0);

    const reset = await recorded(ep['/reset']);
    expect(reset).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(reset.attempts[0]).toMatchObject({ status_code: null, error: 'connection reset', response_body: null });

    const bad = await recorded(ep.tls);
    expect(bad.status).toBe('pending');
    expect(bad.attempts[0]).toMatchObject({ status_code: null, error: 'tls error' });
    expect(tls.requests()).toBe(0);

    const big = await recorded(ep['/huge']);
    expect(big.status).toBe('succeeded');
    expect(big.attempts[0].response_body).toBe('x'.repeat(500));
    await waitFor(() => huge.closed, 'the endless body to be cut off');
    expect(huge.written).toBeLessThan(16 * 1024 * 1024);

    const slow = await recorded(ep['/slow']);
    expect(slow.status).toBe('succeeded');
    expect(slow.attempts[0].duration_ms).toBeGreaterThanOrEqual(1400);
    expect(slow.attempts[0].response_body).toBe('slow ok');

    const hang = await recorded(ep['/hang'], 30_000);
    expect(hang.status).toBe('pending');
    expect(hang.attempts[0]).toMatchObject({ status_code: null, error: 'timeout', response_body: null });
    // Cut by the 10 s deadline: never sooner, and (the receiver never answers) not by anything else; the upper
    // bound leaves a busy machine's timers room.
    expect(hang.attempts[0].duration_ms).toBeGreaterThanOrEqual(9_900);
    expect(hang.attempts[0].duration_ms).toBeLessThan(20_000);
    // The 1 minute wait counts from the timeout, not from the attempt's start (a few ms for rounding).
    const waited = hang.next_attempt_at.getTime() - new Date(hang.attempts[0].at).getTime();
    expect(waited).toBeGreaterThanOrEqual(hang.attempts[0].duration_ms + 60_000 - 5);

    for (const id of Object.values(ep)) expect((await row(id)).attempt_count).toBe(1);
    expect(rx.at('/hang')).toHaveLength(1);
    expect(rx.at('/reset')).toHaveLength(1);
    // No retries of these while other tests move the clock.
    for (const id of Object.values(ep)) await svc.disable(id);
  }, 30_000);

  it('after a timeout, the next attempt is 1 minute after the attempt ended, not after it started', async () => {
    // Frozen, so every instant is exact; the test moves the app's clock 10 s while the receiver hangs.
    t.clock.freeze();
    try {
      rx.on('/hang-then-ok', behaviours.hang());
      const f = await createFirm(t.app, { publish: false });
      const svc = t.app.get(WebhookEndpointsService);
      const { endpoint } = await svc.create({ orgId: f.orgId, url: rx.url('/hang-then-ok'), eventTypes: 'call.completed' });
      const start = t.clock.now().getTime();
      const e = await t.app
        .get(Database)
        .transaction((m) =>
          recordEvent(t.app.get(EventsService), m, { orgId: f.orgId, type: 'call.completed', data: { call_id: 'call_h' } }),
        );
      const stored = (check: (d: any) => boolean, what: string) =>
        waitFor(
          async () => {
            const [d] = await t.sql(`SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND event_id = $2 AND locked_until IS NULL`, [
              endpoint.id,
              e.envelope.id,
            ]);
            return d && check(d) ? d : null;
          },
          what,
          13_000,
        );
      await waitFor(() => rx.at('/hang-then-ok')[0], 'the hanging POST');
      t.clock.advance(10_000);
      const timedOut = await stored((d) => d.attempt_count === 1, 'the timed-out attempt');
      expect(timedOut.status).toBe('pending');
      expect(timedOut.attempts[0]).toMatchObject({ at: new Date(start).toISOString(), status_code: null, error: 'timeout' });
      expect(timedOut.next_attempt_at.getTime()).toBe(start + 10_000 + 60_000);

      rx.on('/hang-then-ok', behaviours.status(200));
      t.clock.advance(60_000);
      t.app.get(DeliveryDispatcher).wake();
      const done = await stored((d) => d.status === 'succeeded', 'the retry');
      expect(done.attempts.map((a: any) => a.at)).toEqual([new Date(start).toISOString(), new Date(start + 70_000).toISOString()]);
      expect(rx.at('/hang-then-ok')).toHaveLength(2);
    } finally {
      t.clock.reset();
    }
  }, 30_000);
});
