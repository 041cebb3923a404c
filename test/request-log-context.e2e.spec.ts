import { PassThrough } from 'node:stream';
import { WebhookEndpointsService } from '../src/webhooks';
import { createFirm } from './support/factories';
import { Receiver, waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';

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
});
