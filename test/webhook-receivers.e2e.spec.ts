import { Database } from '../src/database/sql';
import { EventsService } from '../src/events';
import { WebhookEndpointsService } from '../src/webhooks';
import { createFirm } from './support/factories';
import { behaviours, Receiver, waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';
import { startSelfSignedHttps } from './support/tls';

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
        .transaction((m) => t.app.get(EventsService).record(m, { orgId, type: 'call.completed', data: { call_id: 'call_m' } }));
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
    expect(new Date(good.attempts[0].at).getTime() - started).toBeLessThan(1000);
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

    const hang = await recorded(ep['/hang'], 13_000);
    expect(hang.status).toBe('pending');
    expect(hang.attempts[0]).toMatchObject({ status_code: null, error: 'timeout', response_body: null });
    expect(hang.attempts[0].duration_ms).toBeGreaterThanOrEqual(9_900);
    expect(hang.attempts[0].duration_ms).toBeLessThan(11_500);

    for (const id of Object.values(ep)) expect((await row(id)).attempt_count).toBe(1);
    expect(rx.at('/hang')).toHaveLength(1);
    expect(rx.at('/reset')).toHaveLength(1);
  }, 30_000);
});
