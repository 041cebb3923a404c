import { connect } from 'node:net';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { fixture, insertCall, tempDataDir, uploadPath } from './support/recordings';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from './support/test-app';

const IDLE_MS = 2000;
const REQUEST_MS = 3000;
/**
 * How long the client trickles before it gives up. A trickled body of 100 bytes (one every 250 ms) is complete only
 * after 25 s, and a chunked one never: a connection the server closes within the wait was closed on an incomplete
 * body. The wait bounds nothing about speed: on a healthy machine the answers come in milliseconds.
 */
const WAIT_MS = 20_000;
/** The bounds of the app the "at once" cases run on: beyond the client's wait, so no timeout can be what closed it. */
const PATIENT_MS = 10 * WAIT_MS;

interface Trickled {
  status: number;
  code: string | undefined;
  connection: string | undefined;
  /** When the server closed the connection, from the first byte sent; null if it was still open at the end of the wait. */
  closedAfterMs: number | null;
}

/**
 * Sends the head, then the body one byte every `everyMs` (a chunk of one byte
 * when chunked), for as long as the server keeps the connection open or
 * `waitMs` runs out: the client the audit used to hold connections for ever.
 */
function trickle(baseUrl: string, head: string, opts: { chunked?: boolean; everyMs?: number; waitMs?: number } = {}): Promise<Trickled> {
  const { everyMs = 250, waitMs = WAIT_MS, chunked = false } = opts;
  const { port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const started = Date.now();
    let text = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(head));
    const drip = setInterval(() => socket.writable && socket.write(chunked ? '1\r\nx\r\n' : 'x'), everyMs);
    const giveUp = setTimeout(() => socket.destroy(), waitMs);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', () => undefined); // a reset while dripping: the close below says when
    socket.on('close', () => {
      const closedAfterMs = Date.now() - started >= waitMs ? null : Date.now() - started;
      clearInterval(drip);
      clearTimeout(giveUp);
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      let code: string | undefined;
      try {
        code = (JSON.parse(body) as { code?: string }).code;
      } catch {
        code = undefined;
      }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
        code,
        connection: /\r\nconnection: *([^\r]*)/i.exec(text)?.[1]?.toLowerCase(),
        closedAfterMs,
      });
    });
  });
}

const headOf = (method: string, path: string, headers: string[]) =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
const LENGTH = 'Content-Length: 100';
const CHUNKED = 'Transfer-Encoding: chunked';

describe(`slow bodies (HTTP_IDLE_TIMEOUT_MS=${IDLE_MS}, HTTP_REQUEST_TIMEOUT_MS=${REQUEST_MS})`, () => {
  const data = tempDataDir();
  let t: TestApp;
  /**
   * The same service and database with bounds longer than any wait here: what closes its connections is not a timeout.
   * Calls are ingested through it too: `t`'s idle bound also runs while an answer is being prepared.
   */
  let patient: TestApp;
  let firm: TestFirm;

  beforeAll(async () => {
    t = await startTestApp({
      env: { ...internalEnv, DATA_DIR: data.dir, HTTP_IDLE_TIMEOUT_MS: String(IDLE_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS) },
    });
    patient = await startTestApp({
      databaseUrl: t.databaseUrl,
      env: { ...internalEnv, DATA_DIR: data.dir, HTTP_IDLE_TIMEOUT_MS: String(PATIENT_MS), HTTP_REQUEST_TIMEOUT_MS: String(PATIENT_MS) },
    });
    firm = await createFirm(t.app);
  });
  afterAll(async () => {
    await patient.close();
    await t.close();
    data.cleanup();
  });

  /** The same request without a body: what the answer must be with one. */
  const withoutBody = (method: string, path: string, headers: string[]) =>
    trickle(patient.baseUrl, headOf(method, path, [...headers, 'Content-Length: 0', 'Connection: close']), { everyMs: 60_000 });
  /** Answered, and the connection closed, while the body was still incomplete (and no timeout could have fired). */
  const closedOnAnIncompleteBody = (r: Trickled) => expect(r.closedAfterMs).not.toBeNull();

  describe.each([
    ['Content-Length', LENGTH, false],
    ['chunked', CHUNKED, true],
  ])('a body (%s) where no route reads one is answered at once, unread, and the connection closed', (_kind, framing, chunked) => {
    it.each([
      ['POST', '/v1/nowhere', 404],
      ['POST', '/v1/calls', 405],
      ['DELETE', '/v1/calls', 405],
      ['PUT', '/v1/leads', 405],
      ['OPTIONS', '/v1/calls', 405],
      ['POST', '/internal/v1/nowhere', 404],
    ])('%s %s without a key: the status it has without a body (%d)', async (method, path, status) => {
      const expected = await withoutBody(method, path, []);
      const r = await trickle(patient.baseUrl, headOf(method, path, ['Content-Type: application/json', framing]), { chunked });
      expect({ status: r.status, code: r.code, connection: r.connection }).toEqual({
        status: expected.status,
        code: expected.code,
        connection: 'close',
      });
      expect(r.status).toBe(status);
      closedOnAnIncompleteBody(r);
    });

    it.each([
      ['GET /v1/calls without a key', 'GET', '/v1/calls', () => []],
      ['GET /v1/calls with a key', 'GET', '/v1/calls', () => [`Authorization: Bearer ${firm.keys.read}`]],
      ['GET /v1/calls with an unknown key', 'GET', '/v1/calls', () => ['Authorization: Bearer svc_live_not_a_real_key']],
      ['GET /v1/health', 'GET', '/v1/health', () => []],
      ['HEAD on a recording link', 'HEAD', '/v1/recordings/abc', () => []],
    ])('%s: the status it has without a body', async (_name, method, path, auth) => {
      const expected = await withoutBody(method, path, auth());
      const r = await trickle(patient.baseUrl, headOf(method, path, [...auth(), 'Content-Type: application/json', framing]), { chunked });
      expect({ status: r.status, code: r.code, connection: r.connection }).toEqual({
        status: expected.status,
        code: expected.code,
        connection: 'close',
      });
      closedOnAnIncompleteBody(r);
    });
  });

  it.each([
    ['no key', []],
    ['an unknown key', ['Authorization: Bearer svc_live_not_a_real_key']],
  ])('a PATCH with %s and a trickling body is answered 401 at once and the connection closed', async (_name, auth) => {
    const leadId = (await ingestOk(patient, firm.orgId, nextCallId(), fullCallDocument())).lead_id as string;
    const r = await trickle(patient.baseUrl, headOf('PATCH', `/v1/leads/${leadId}`, [...auth, 'Content-Type: application/json', LENGTH]));
    expect({ status: r.status, code: r.code, connection: r.connection }).toEqual({
      status: 401,
      code: 'unauthorized',
      connection: 'close',
    });
    closedOnAnIncompleteBody(r);
  });

  // Both framings at once: each trickle mostly waits out the request bound, and neither depends on the other.
  it('a keyed PATCH whose body (Content-Length, chunked) trickles one byte at a time is cut off at the request bound, writing nothing', async () => {
    const cases = await Promise.all(
      [
        { framing: LENGTH, chunked: false },
        { framing: CHUNKED, chunked: true },
      ].map(async ({ framing, chunked }) => {
        const leadId = (await ingestOk(patient, firm.orgId, nextCallId(), fullCallDocument())).lead_id as string;
        const head = headOf('PATCH', `/v1/leads/${leadId}`, [
          `Authorization: Bearer ${firm.keys['read-update-leads']}`,
          'Content-Type: application/json',
          framing,
        ]);
        return { framing, leadId, r: await trickle(t.baseUrl, head, { chunked }) };
      }),
    );
    for (const { framing, leadId, r } of cases) {
      expect({ framing, status: r.status, code: r.code, connection: r.connection }).toEqual({
        framing,
        status: 408,
        code: 'invalid_request',
        connection: 'close',
      });
      // Not before the bound (the server cannot close sooner, however fast it is); after it, on a body still
      // incomplete, and with the request bound's own 408 (the idle bound cannot fire: a byte comes every 250 ms).
      expect(r.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_MS - 100);
      closedOnAnIncompleteBody(r);
      expect((await t.sql('SELECT version FROM leads WHERE lead_id = $1', [leadId]))[0].version).toBe(1);
    }
  });

  it('a recording upload that moves steadily may take longer than the request bound', async () => {
    const callId = nextCallId('call_slow');
    await insertCall(t, firm.orgId, callId);
    const audio = fixture('spanish-caller.ogg');
    const { port } = new URL(t.baseUrl);
    const pieces = 16; // one every 300 ms: about 4.8 s in all, never idle for IDLE_MS
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          headOf('PUT', uploadPath(firm.orgId, callId), [
            `Authorization: Bearer ${TEST_INTERNAL_TOKEN}`,
            'Content-Type: audio/ogg',
            `Content-Length: ${audio.length}`,
            'Connection: close',
          ]),
        );
        const size = Math.ceil(audio.length / pieces);
        let at = 0;
        const drip = setInterval(() => {
          socket.write(audio.subarray(at, at + size));
          at += size;
          if (at >= audio.length) clearInterval(drip);
        }, 300);
      });
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => (text += d));
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect((await t.sql('SELECT 1 FROM recordings WHERE call_id = $1', [callId])).length).toBe(1);
  });
});
