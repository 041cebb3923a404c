import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { TestFirm } from '../support/factories';
import { OtlpReceiver } from '../support/otlp-receiver';
import { Receiver, waitFor } from '../support/receiver';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';
import { delivered, exported, firmWithLeadAndEndpoint, newTraceparent, patchLeadInTrace, traceEnv } from './tracing-support';

const SERVER = 2;
const CLIENT = 3;

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
    await patchLeadInTrace(t, firm, setup.leadId, incoming.header);
    const [first] = await delivered(rx, '/hook', setup.leadId);

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
    expect(first.headers.traceparent).toBe(`00-${incoming.traceId}-${attempt.spanId}-01`);

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
