import { DeliveryDispatcher } from '../../src/webhooks';
import { OtlpReceiver } from '../support/otlp-receiver';
import { behaviours, Receiver, waitFor } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';
import { deliveriesTo, exported, firmWithLeadAndEndpoint, HOUR, newTraceparent, patchLeadInTrace, traceEnv } from './tracing-support';

describe('tracing: a retry hours later, by another worker, joins the same trace', () => {
  let otlp: OtlpReceiver;
  let workerOtlp: OtlpReceiver;
  let rx: Receiver;
  let api: TestApp;
  let worker: TestApp | null = null;

  beforeAll(async () => {
    [otlp, workerOtlp, rx] = await Promise.all([OtlpReceiver.start(), OtlpReceiver.start(), Receiver.start()]);
    api = await startTestApp({ env: traceEnv(otlp, 'http/json') });
  });
  afterAll(async () => {
    await worker?.close();
    await api.close();
    await rx.close();
    await otlp.close();
    await workerOtlp.close();
  });

  it('sends the second attempt, made by a second app (a worker with its own tracer) three hours later, in the trace of the PATCH', async () => {
    let calls = 0;
    rx.on('/flaky', (req, res, body) => behaviours.status(++calls === 1 ? 503 : 200)(req, res, body));
    const { firm, leadId } = await firmWithLeadAndEndpoint(api, rx, '/flaky');
    const incoming = newTraceparent();
    await patchLeadInTrace(api, firm, leadId, incoming.header);
    await waitFor(() => deliveriesTo(rx, '/flaky', leadId).length === 1, 'the first, failing attempt');
    await waitFor(async () => {
      const [d] = await api.sql(
        `SELECT attempt_count, (SELECT locked_until FROM webhook_pending_deliveries p WHERE p.id = d.id) AS locked_until FROM webhook_deliveries d WHERE org_id = $1`,
        [firm.orgId],
      );
      return d?.attempt_count === 1 && d.locked_until === null;
    }, 'the failed attempt recorded');
    // The app that handled the request stops sending; another app on the same database (its own tracer provider,
    // nothing shared in memory, as another process) retries hours later from the stored trace context alone.
    await api.app.get(DeliveryDispatcher).beforeApplicationShutdown();
    worker = await startTestApp({ databaseUrl: api.databaseUrl, env: { ...traceEnv(workerOtlp, 'http/protobuf'), ROLE: 'worker' } });
    worker.clock.advance(3 * HOUR);
    worker.app.get(DeliveryDispatcher).wake();
    await waitFor(() => deliveriesTo(rx, '/flaky', leadId).length === 2, 'the retry');

    const [first, second] = deliveriesTo(rx, '/flaky', leadId).map((r) => String(r.headers.traceparent));
    expect(first.split('-')[1]).toBe(incoming.traceId);
    expect(second.split('-')[1]).toBe(incoming.traceId);
    expect(second).not.toBe(first);
    const outbox = await exported(
      otlp,
      'the outbox span',
      (s) => s.name === 'outbox record lead.updated' && s.traceId === incoming.traceId,
    );
    const retry = await exported(
      workerOtlp,
      'the retry span',
      (s) => s.attributes['app.webhook.delivery.attempt'] === 2 && s.traceId === incoming.traceId,
    );
    expect(retry.parentSpanId).toBe(outbox.spanId);
    expect(second).toBe(`00-${incoming.traceId}-${retry.spanId}-01`);
    expect(retry.resource['service.name']).toBe('receptionist-test-http-protobuf');
    // Each app exports to its own receiver only: a tracer provider per app, none global. (The worker records events of
    // its own, such as the endpoint's recovery after the failed first attempt: those outbox spans are its.)
    expect(workerOtlp.spans().some((s) => s.name.startsWith('PATCH ') || s.name === 'outbox record lead.updated')).toBe(false);
    expect(otlp.spans().some((s) => s.attributes['app.webhook.delivery.attempt'] === 2)).toBe(false);
  });
});
