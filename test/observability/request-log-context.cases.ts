import { PassThrough } from 'node:stream';
import { WebhookEndpointsService } from '../../src/webhooks';
import { createFirm } from '../support/factories';
import { Receiver, waitFor } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';

describe('application log lines written while handling a request', () => {
  let t: TestApp;
  let rx: Receiver;
  const lines: Record<string, any>[] = [];

  beforeAll(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) =>
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, any>),
      ),
    );
    rx = await Receiver.start();
    t = await startTestApp({ env: { LOG_LEVEL: 'debug', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, logStream });
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });

  it('carry the id of that request as reqId; work the request only started (the dispatcher) carries none', async () => {
    const f = await createFirm(t.app, { publish: false });
    const { endpoint } = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: rx.url('/ctx'), eventTypes: 'lead.created' });
    const sends = [];
    for (const id of ['ctx-request-1', 'ctx-request-2']) {
      const r = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { key: f.keys.read, headers: { 'x-request-id': id } });
      expect(r.status).toBe(202);
      expect(r.headers.get('x-request-id')).toBe(id);
      sends.push({ requestId: id, deliveryId: r.body.delivery.id as string });
    }

    for (const { requestId, deliveryId } of sends) {
      const queued = await waitFor(
        () => lines.find((l) => l.msg === 'webhook delivery queued' && l.delivery_id === deliveryId),
        `the queued line of ${deliveryId}`,
      );
      expect(queued.reqId).toBe(requestId);
      // The access line of the same request names the same id.
      const access = await waitFor(
        () => lines.find((l) => l.msg === 'request completed' && l.req?.id === requestId),
        `the access line of ${requestId}`,
      );
      expect(access.res.statusCode).toBe(202);
      // The send itself happens later in the dispatcher, outside any request.
      const attempt = await waitFor(
        () => lines.find((l) => l.msg === 'webhook attempt' && l.delivery_id === deliveryId),
        `the attempt line of ${deliveryId}`,
        20_000,
      );
      expect(attempt.reqId).toBeUndefined();
    }
  });

  it('background work a request started carries none: the events LISTEN connection the first waiting request opened', async () => {
    const f = await createFirm(t.app, { publish: false });
    // The first waiting request of this app opens its LISTEN connection (and used to lend it its log context for ever).
    const waited = await t.get('/v1/events', { key: f.keys.read, query: { wait: 1 }, headers: { 'x-request-id': 'ctx-first-wait' } });
    expect({ status: waited.status, events: waited.body.events }).toEqual({ status: 200, events: [] });
    expect(lines.some((l) => l.reqId === 'ctx-first-wait' || l.req?.id === 'ctx-first-wait')).toBe(true);
    // Long after that request: its connection drops, and the listener says so, then reconnects.
    const dropped = await waitFor(
      async () =>
        (
          await t.sql(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'events-listener'`,
          )
        ).length > 0,
      'the events LISTEN connection to drop',
    );
    expect(dropped).toBe(true);
    const warning = await waitFor(
      () => lines.find((l) => l.msg === 'events LISTEN connection lost; reconnecting'),
      'the listener to log the lost connection',
    );
    expect(warning.reqId).toBeUndefined();
    await waitFor(
      async () =>
        (await t.sql(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'events-listener'`)).length >
        0,
      'the listener to reconnect',
    );
    // Nothing the process logged on its own since carries a request id.
    const background = lines.filter((l) => typeof l.context === 'string' && ['EventsWait', 'WebhookDispatcher'].includes(l.context));
    expect(background.length).toBeGreaterThan(0);
    expect(background.filter((l) => l.reqId !== undefined)).toEqual([]);
  });
});
