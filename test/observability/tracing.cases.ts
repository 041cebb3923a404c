import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { Tracing } from '../../src/common/tracing/tracing';
import { DeliveryDispatcher, WebhookEndpointsService } from '../../src/webhooks';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { runCli } from '../support/cli';
import { createFirm, type TestFirm } from '../support/factories';
import { OtlpReceiver, type ExportedSpan } from '../support/otlp-receiver';
import { behaviours, Receiver, waitFor } from '../support/receiver';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';

const HOUR = 3_600_000;
const SERVER = 2;
const CLIENT = 3;

const traceEnv = (otlp: OtlpReceiver, protocol: string) => ({
  ...internalEnv,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_SERVICE_NAME: `receptionist-test-${protocol.replace('/', '-')}`,
  // Batches leave every 50 ms instead of 5 s, so the test waits for spans, not for a timer.
  OTEL_BSP_SCHEDULE_DELAY: '50',
});

const newTraceparent = () => {
  const traceId = randomBytes(16).toString('hex');
  const parentSpanId = randomBytes(8).toString('hex');
  return { traceId, parentSpanId, header: `00-${traceId}-${parentSpanId}-01` };
};

/** The one span matching, once exported. */
const exported = (otlp: OtlpReceiver, what: string, match: (s: ExportedSpan) => boolean) =>
  waitFor(() => otlp.spans().find(match), what, 10_000);

const deliveriesTo = (rx: Receiver, path: string, leadId: string) =>
  rx.at(path).filter((r) => {
    const body = JSON.parse(r.body);
    return body.type === 'lead.updated' && body.data.lead_id === leadId;
  });

async function firmWithLeadAndEndpoint(t: TestApp, rx: Receiver, path: string) {
  const firm = await createFirm(t.app);
  const created = await t.app.get(WebhookEndpointsService).create({ orgId: firm.orgId, url: rx.url(path), eventTypes: 'lead.updated' });
  const leadId = (await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id as string;
  return { firm, leadId, secret: created.secret };
}

describe.each(['http/json', 'http/protobuf'])('tracing, exported over OTLP %s', (protocol) => {
  let otlp: OtlpReceiver;
  let rx: Receiver;
  let t: TestApp;
  let firm: TestFirm;
  let secret: string;
  let logged = '';

  beforeAll(async () => {
    otlp = await OtlpReceiver.start();
    rx = await Receiver.start();
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => (logged += chunk.toString('utf8')));
    t = await startTestApp({ env: traceEnv(otlp, protocol), logStream });
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
    await otlp.close();
  });

  it('follows one change from the PATCH through the outbox and the attempt to the receiver, in one trace', async () => {
    const setup = await firmWithLeadAndEndpoint(t, rx, '/hook');
    ({ firm, secret } = setup);
    const incoming = newTraceparent();
    const patched = await t.request('PATCH', `/v1/leads/${setup.leadId}`, {
      key: firm.keys['read-update-leads'],
      body: { status: 'contacted' },
      headers: { traceparent: incoming.header },
    });
    expect(patched.status).toBe(200);
    const [delivered] = await waitFor(() => {
      const got = deliveriesTo(rx, '/hook', setup.leadId);
      return got.length > 0 ? got : null;
    }, 'the lead.updated delivery');

    // The request's span continues the caller's trace, named by the route template, with the firm and key ids.
    const request = await exported(otlp, 'the PATCH span', (s) => s.name === 'PATCH /v1/leads/:lead_id' && s.traceId === incoming.traceId);
    expect(request).toMatchObject({ parentSpanId: incoming.parentSpanId, kind: SERVER });
    expect(request.attributes).toMatchObject({
      'http.request.method': 'PATCH',
      'http.route': '/v1/leads/:lead_id',
      'http.response.status_code': 200,
      'app.firm.id': firm.orgId,
      'app.api_key.id': firm.keyIds['read-update-leads'],
    });
    expect(request.resource['service.name']).toBe(`receptionist-test-${protocol.replace('/', '-')}`);
    expect(new Set(otlp.posts.map((p) => p.contentType))).toEqual(
      new Set([protocol === 'http/json' ? 'application/json' : 'application/x-protobuf']),
    );

    // The outbox span is the request's child, and its context is what the event row stores.
    const outbox = await exported(
      otlp,
      'the outbox span',
      (s) => s.name === 'outbox record lead.updated' && s.traceId === incoming.traceId,
    );
    expect(outbox.parentSpanId).toBe(request.spanId);
    const [event] = await t.sql(`SELECT id, trace_context FROM events WHERE type = 'lead.updated' AND data->>'lead_id' = $1`, [
      setup.leadId,
    ]);
    expect(event.trace_context).toBe(`00-${incoming.traceId}-${outbox.spanId}-01`);
    expect(outbox.attributes['app.event.id']).toBe(event.id);

    // The attempt's span hangs under the stored context; the receiver got that span as its traceparent.
    const attempt = await exported(
      otlp,
      'the attempt span',
      (s) => s.name === 'webhook deliver lead.updated' && s.traceId === incoming.traceId,
    );
    expect(attempt).toMatchObject({ parentSpanId: outbox.spanId, kind: CLIENT });
    expect(attempt.attributes).toMatchObject({
      'app.event.id': event.id,
      'http.response.status_code': 200,
      'app.webhook.delivery.attempt': 1,
    });
    expect(delivered.headers.traceparent).toBe(`00-${incoming.traceId}-${attempt.spanId}-01`);

    // Its SQL statements are children in the same trace, as text without parameter values.
    const statements = otlp.spans().filter((s) => s.traceId === incoming.traceId && s.attributes['db.system.name'] === 'postgresql');
    const update = statements.find((s) => /^\s*UPDATE leads/i.test(String(s.attributes['db.query.text'])));
    expect(update).toBeDefined();
    expect(statements.every((s) => !String(s.attributes['db.query.text']).includes(setup.leadId))).toBe(true);
    expect(statements.filter((s) => s.parentSpanId === request.spanId).length).toBeGreaterThan(0);
  });

  it('starts a trace for a request without traceparent, and logs the exported trace id', async () => {
    const r = await t.get('/v1/account', { key: firm.keys.read });
    expect(r.status).toBe(200);
    const span = await exported(
      otlp,
      'the account span',
      (s) => s.name === 'GET /v1/account' && s.attributes['app.request.id'] === r.headers.get('x-request-id'),
    );
    expect(span.parentSpanId).toBe('');
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    const access = await waitFor(
      () =>
        logged
          .split('\n')
          .filter((l) => l.includes('"request completed"'))
          .map((l) => JSON.parse(l))
          .find((l) => l.req.id === r.headers.get('x-request-id')),
      'the access line',
    );
    expect(access).toMatchObject({ trace_id: span.traceId, span_id: span.spanId });
  });

  it('never exports a key, the internal token, a signing secret or a recording link token', async () => {
    const linkToken = randomBytes(32).toString('base64url');
    expect((await t.get(`/v1/recordings/${linkToken}`)).status).toBe(404);
    expect((await t.get('/v1/account', { key: `${firm.keys.read}x` })).status).toBe(401);
    // Credentials in headers a span could record: the request id (which a span carries) and the User-Agent.
    const shaped = await t.get('/v1/calls', {
      key: firm.keys.read,
      headers: { 'x-request-id': firm.keys.read, 'user-agent': `client/1.0 key=${firm.keys.read} secret=${secret}` },
    });
    expect(shaped.status).toBe(200);
    await exported(
      otlp,
      'the span of the request with a key as its id',
      (s) => s.attributes['app.request.id'] === shaped.headers.get('x-request-id'),
    );
    await exported(otlp, 'the link span', (s) => s.name === 'GET /v1/recordings/:token');
    await exported(otlp, 'the refused span', (s) => s.name === 'GET /v1/account' && s.attributes['http.response.status_code'] === 401);
    const raw = otlp.rawText();
    for (const secretText of [...Object.values(firm.keys), TEST_INTERNAL_TOKEN, secret, linkToken, 'svc_live_', 'Bearer ']) {
      expect(raw.includes(secretText)).toBe(false);
    }
    expect(otlp.spans().some((s) => s.name.includes('/v1/recordings/') && s.name !== 'GET /v1/recordings/:token')).toBe(false);
  });
});

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
    const patched = await api.request('PATCH', `/v1/leads/${leadId}`, {
      key: firm.keys['read-update-leads'],
      body: { status: 'contacted' },
      headers: { traceparent: incoming.header },
    });
    expect(patched.status).toBe(200);
    await waitFor(() => deliveriesTo(rx, '/flaky', leadId).length === 1, 'the first, failing attempt');
    await waitFor(async () => {
      const [d] = await api.sql(`SELECT attempt_count, locked_until FROM webhook_deliveries WHERE org_id = $1`, [firm.orgId]);
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
    // Each app exports to its own receiver only: a tracer provider per app, none global.
    expect(workerOtlp.spans().some((s) => s.name.startsWith('PATCH ') || s.name.startsWith('outbox '))).toBe(false);
    expect(otlp.spans().some((s) => s.attributes['app.webhook.delivery.attempt'] === 2)).toBe(false);
  });
});

describe('tracing off (no OTLP endpoint set)', () => {
  let rx: Receiver;
  let t: TestApp;

  beforeAll(async () => {
    rx = await Receiver.start();
    t = await startTestApp({ env: { ...internalEnv, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });

  it('starts no SDK, stores no trace context and sends no traceparent; an incoming one is still only logged', async () => {
    expect(t.app.get(Tracing)).toBe(Tracing.OFF);
    const { firm, leadId } = await firmWithLeadAndEndpoint(t, rx, '/off');
    const incoming = newTraceparent();
    const patched = await t.request('PATCH', `/v1/leads/${leadId}`, {
      key: firm.keys['read-update-leads'],
      body: { status: 'contacted' },
      headers: { traceparent: incoming.header },
    });
    expect(patched.status).toBe(200);
    const [delivered] = await waitFor(() => {
      const got = deliveriesTo(rx, '/off', leadId);
      return got.length > 0 ? got : null;
    }, 'the lead.updated delivery');
    expect(delivered.headers.traceparent).toBeUndefined();
    const [event] = await t.sql(`SELECT trace_context FROM events WHERE type = 'lead.updated' AND data->>'lead_id' = $1`, [leadId]);
    expect(event.trace_context).toBeNull();
  });
});

describe('tracing in the CLI (call ingest records events)', () => {
  let otlp: OtlpReceiver;
  let t: TestApp;

  beforeAll(async () => {
    otlp = await OtlpReceiver.start();
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
    await otlp.close();
  });

  it('exports the outbox spans (default protocol, http/protobuf) before it exits, and stores their context with the events', async () => {
    const firm = await createFirm(t.app);
    const callId = nextCallId('cli_trace_');
    const r = await runCli(['call', 'ingest', '--org', firm.orgId, '--file', '-', '--json'], {
      databaseUrl: t.databaseUrl,
      stdin: JSON.stringify({ ...fullCallDocument(), call_id: callId }),
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_SERVICE_NAME: 'receptionist-cli' },
    });
    expect(r.code).toBe(0);
    // No wait: closing the CLI's app flushed the batch before the process exited.
    expect(new Set(otlp.posts.map((p) => p.contentType))).toEqual(new Set(['application/x-protobuf']));
    const events = await t.sql(`SELECT type, trace_context FROM events WHERE org_id = $1 AND data->>'call_id' = $2 ORDER BY seq`, [
      firm.orgId,
      callId,
    ]);
    expect(events.map((e) => e.type).sort()).toEqual(['call.completed', 'lead.created']);
    for (const e of events) {
      const span = otlp.spans().find((s) => s.name === `outbox record ${e.type}` && e.trace_context === `00-${s.traceId}-${s.spanId}-01`);
      expect(span?.resource['service.name']).toBe('receptionist-cli');
    }
  });
});
