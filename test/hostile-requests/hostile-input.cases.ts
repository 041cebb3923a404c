import { connect } from 'node:net';
import { InvalidInputError } from '../../src/common/errors/invalid-input';
import { IngestionService } from '../../src/ingestion';
import { WebhookEndpointsService } from '../../src/webhooks';
import { fullCallDocument, ingestOk, internalEnv, nextCallId, putCall } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { waitFor } from '../support/receiver';
import { sharedTestApp } from '../support/shared-app';
import { startTestApp, type HttpResult, type TestApp } from '../support/test-app';

/** Writes raw bytes (so headers can repeat and bodies can stop short); resolves with all it read once the server closes. */
function rawExchange(baseUrl: string, bytes: string): Promise<{ text: string; status: number; body: any }> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const rest = text.slice(text.indexOf('\r\n\r\n') + 4);
      let body: any;
      try {
        body = JSON.parse(rest);
      } catch {
        body = null;
      }
      resolve({ text, status, body });
    });
  });
}

/**
 * Input no client should send, refused as invalid input (400 invalid_request
 * naming the field) rather than a 500 or a silently altered write.
 */
describe('hostile input', () => {
  let t: TestApp;
  let firm: TestFirm;

  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    firm = await createFirm(t.app);
  });

  const newLead = async (): Promise<string> => (await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id;
  const storedLead = async (leadId: string) =>
    (await t.sql('SELECT external_id, status_reason, version FROM leads WHERE lead_id = $1', [leadId]))[0];
  const expectRefused = (r: HttpResult, param: string) => {
    expect({ status: r.status, type: r.headers.get('content-type'), code: r.body?.code, param: r.body?.param }).toEqual({
      status: 400,
      type: 'application/problem+json; charset=utf-8',
      code: 'invalid_request',
      param,
    });
  };
  const patchRaw = (leadId: string, raw: string | Buffer) =>
    t.request('PATCH', `/v1/leads/${leadId}`, {
      key: firm.keys['read-update-leads'],
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });

  describe('NUL characters', () => {
    it.each([
      ['/v1/calls?ids=a%00b', 'ids'],
      ['/v1/leads?external_id=a%00b', 'external_id'],
      ['/v1/webhook-deliveries?event_id=evt_%00', 'event_id'],
      ['/v1/calls?cursor=%00', 'cursor'],
    ])('GET %s answers 400 naming %s', async (path, param) => {
      expectRefused(await t.get(path, { key: firm.keys.read }), param);
    });

    it.each(['external_id', 'status_reason'])(
      'PATCH /v1/leads/{id} with a NUL in %s answers 400 naming it and writes nothing',
      async (member) => {
        const leadId = await newLead();
        const before = await storedLead(leadId);
        const r = await t.request('PATCH', `/v1/leads/${leadId}`, {
          key: firm.keys['read-update-leads'],
          body: { status: 'contacted', [member]: 'a\u0000b' },
        });
        expectRefused(r, member);
        expect(await storedLead(leadId)).toEqual(before);
      },
    );

    it('the internal call document with a NUL in untrusted.caller_name answers 400 naming it and stores no call', async () => {
      const callId = nextCallId();
      const doc = fullCallDocument();
      doc.untrusted.caller_name = 'Jordan\u0000Reyes';
      expectRefused(await putCall(t, firm.orgId, callId, doc), 'untrusted.caller_name');
      expect(await t.sql('SELECT 1 FROM calls WHERE call_id = $1', [callId])).toEqual([]);
    });
  });

  describe('text that is not Unicode', () => {
    it('a body with invalid UTF-8 ("caf\\xE9") answers 400 naming body and writes nothing', async () => {
      const leadId = await newLead();
      const before = await storedLead(leadId);
      const raw = Buffer.concat([Buffer.from('{"external_id":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
      expectRefused(await patchRaw(leadId, raw), 'body');
      expect(await storedLead(leadId)).toEqual(before);
    });

    it('a lone surrogate ("a\\ud800b") in a body member answers 400 naming it and writes nothing', async () => {
      const leadId = await newLead();
      const before = await storedLead(leadId);
      expectRefused(await patchRaw(leadId, '{"external_id":"a\\ud800b"}'), 'external_id');
      expect(await storedLead(leadId)).toEqual(before);
    });

    it('a lone surrogate in the internal call document answers 400 naming it', async () => {
      const callId = nextCallId();
      const doc = fullCallDocument();
      doc.untrusted.caller_name = 'Jordan \udc00';
      expectRefused(await putCall(t, firm.orgId, callId, doc), 'untrusted.caller_name');
      expect(await t.sql('SELECT 1 FROM calls WHERE call_id = $1', [callId])).toEqual([]);
    });

    it('a paired surrogate (an emoji) is ordinary text and is stored as sent', async () => {
      const leadId = await newLead();
      const r = await patchRaw(leadId, '{"external_id":"crm-\\ud83d\\ude00"}');
      expect(r.status).toBe(200);
      expect((await storedLead(leadId)).external_id).toBe('crm-\u{1F600}');
    });
  });

  it('?__proto__=x answers 400 naming __proto__ like any unknown parameter', async () => {
    const r = await t.get('/v1/calls?__proto__=x', { key: firm.keys.read });
    expectRefused(r, '__proto__');
    expect(r.body.detail).toBe('__proto__ is not a known parameter.');
    expectRefused(await t.get('/v1/calls?whatever=x', { key: firm.keys.read }), 'whatever');
  });

  it.each(['https://[::127.0.0.1]/h', 'https://[::ffff:0:127.0.0.1]/h', 'https://[64:ff9b::a9fe:a9fe]/h', 'https://[2002:7f00:1::1]/h'])(
    'refuses the webhook target %s, an IPv6 form of a non-public IPv4 address, and stores no endpoint',
    async (url) => {
      const create = t.app.get(WebhookEndpointsService).create({ orgId: firm.orgId, url, eventTypes: 'lead.created' });
      await expect(create).rejects.toThrow(InvalidInputError);
      expect(await t.sql('SELECT count(*)::int AS n FROM webhook_endpoints WHERE org_id = $1', [firm.orgId])).toEqual([{ n: 0 }]);
    },
  );

  it('two Authorization headers answer 400 naming authorization, even when the first is a valid key', async () => {
    const head = (second: string) =>
      `GET /v1/calls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${firm.keys.read}\r\nauthorization: ${second}\r\nConnection: close\r\n\r\n`;
    for (const second of ['Bearer svc_live_nonsense', `Bearer ${firm.keys.read}`]) {
      const r = await rawExchange(t.baseUrl, head(second));
      expect({ status: r.status, code: r.body?.code, param: r.body?.param }).toEqual({
        status: 400,
        code: 'invalid_request',
        param: 'authorization',
      });
      expect(r.text).not.toContain(firm.keys.read);
    }
  });

  it('a keyless PATCH whose body never finishes is answered 401 at once, before the body is read, and writes nothing', async () => {
    const leadId = await newLead();
    const before = await storedLead(leadId);
    const head = `PATCH /v1/leads/${leadId} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    for (const auth of ['', 'Authorization: Bearer svc_live_not_a_real_key\r\n']) {
      const r = await rawExchange(t.baseUrl, head.replace('Host: x\r\n', `Host: x\r\n${auth}`) + '{"status":');
      expect({ status: r.status, code: r.body?.code }).toEqual({ status: 401, code: 'unauthorized' });
    }
    expect(await storedLead(leadId)).toEqual(before);
  });

  it('the internal call document with no token and a pending body is answered 401 at once', async () => {
    const head = `PUT /internal/v1/orgs/${firm.orgId}/calls/${nextCallId()} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const r = await rawExchange(t.baseUrl, `${head}{"call":`);
    expect({ status: r.status, code: r.body?.code }).toEqual({ status: 401, code: 'unauthorized' });
  });

  describe('with HTTP_IDLE_TIMEOUT_MS=1000', () => {
    let short: TestApp;
    let shortFirm: TestFirm;
    beforeAll(async () => {
      short = await startTestApp({ env: { ...internalEnv, HTTP_IDLE_TIMEOUT_MS: '1000' } });
      shortFirm = await createFirm(short.app);
    });
    afterAll(() => short.close());

    it('a keyed PATCH whose body stops after 10 of 100 bytes is closed after the idle bound, and writes nothing', async () => {
      // Written through the pipeline's port, not over HTTP: the 1 s idle bound also runs while a request is being
      // answered, and a loaded machine took longer than that to ingest a call (the fetch was closed unanswered).
      const ingested = await short.app.get(IngestionService).ingest(shortFirm.orgId, fullCallDocument(), nextCallId(), { livemode: true });
      const leadId = ingested.lead_id;
      const started = Date.now();
      const r = await rawExchange(
        short.baseUrl,
        `PATCH /v1/leads/${leadId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${shortFirm.keys['read-update-leads']}\r\n` +
          `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"status":`,
      );
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(r.text).toBe(''); // closed without an answer: nobody is waiting for one
      expect((await short.sql('SELECT version FROM leads WHERE lead_id = $1', [leadId]))[0].version).toBe(1);
    });
  });

  it('an event id filter that is not an evt_ id answers the same 400 on /v1/webhook-deliveries as on /v1/events', async () => {
    const deliveries = await t.get('/v1/webhook-deliveries?event_id=xyz', { key: firm.keys.read });
    const events = await t.get('/v1/events?after=xyz', { key: firm.keys.read });
    expectRefused(deliveries, 'event_id');
    expectRefused(events, 'after');
    expect(deliveries.body.detail).toBe('event_id must be an event id (evt_...).');
    expect(events.body.detail).toBe('after must be an event id (evt_...).');
    expect((await t.get('/v1/webhook-deliveries?event_id=evt_0123abc', { key: firm.keys.read })).status).toBe(200);
  });

  it.each(['/v1/calls', '/v1/leads'])('a %s cursor issued to one firm is refused for another like a tampered one', async (list) => {
    const other = await createFirm(t.app);
    await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument());
    await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument());
    const first = await waitFor(async () => {
      const r = await t.get(list, { key: firm.keys.read, query: { limit: 1 } });
      return r.status === 200 && r.body.next_cursor ? r : null;
    }, `a second page of ${list}`);
    const cursor: string = first.body.next_cursor;
    const r = await t.get(list, { key: other.keys.read, query: { limit: 1, cursor } });
    expectRefused(r, 'cursor');
    expect(r.body.detail).toBe('cursor is not valid; pass next_cursor exactly as the previous page returned it.');
    expect((await t.get(list, { key: firm.keys.read, query: { limit: 1, cursor } })).status).toBe(200);
  });

  it.each([
    ['a URL', (path: string) => `GET ${path}?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['headers', (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`],
  ])("%s over Node's 16 KiB limit answers 431 problem+json without echoing what was sent", async (_what, build) => {
    const r = await rawExchange(t.baseUrl, build('/v1/calls/secret-looking-path'));
    expect({ status: r.status, code: r.body?.code }).toEqual({ status: 431, code: 'invalid_request' });
    expect(r.text).toMatch(/\r\ncontent-type: application\/problem\+json; charset=utf-8\r\n/i);
    expect(r.body.request_id).toEqual(expect.any(String));
    expect(r.text).not.toContain('xxxx');
    expect(r.text).not.toContain('secret-looking-path');
  });
});
