import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { LINGER_MAX_BYTES, LINGER_MAX_MS } from '../src/common/http/lingering-close';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';
import { waitFor } from './support/receiver';

const run = promisify(execFile);
const MiB = 1024 * 1024;
/** A small body, and the 8 MiB one Node's fetch used to get `write EPIPE` for instead of the answer. */
const SIZES = [2_000_000, 8 * MiB];
const CLIENTS = resolve('test/support/body-clients.mjs');

interface Refusal {
  name: string;
  method: string;
  path: () => string;
  headers: () => Record<string, string>;
  chunked?: boolean;
  /** The byte the body is made of: `a`, or `[` for a body nested too deep from its 33rd byte. */
  fill?: 'a' | '[';
  status: number;
  code: string;
}

interface Seen {
  status: number;
  connection: string | null;
  code: string | null;
  error: string | null;
}

/**
 * Every refusal given before a body is read (or while it is, over the
 * route's limit) reaches a client that keeps sending the body: Node's fetch,
 * node:http and curl, each in a process of its own, up to 8 MiB sent. The
 * connection closes in stages (src/common/http/lingering-close.ts): answer,
 * FIN, the rest read and dropped, within bounds a hostile sender cannot
 * stretch.
 */
describe('every refusal reaches a client still sending its body', () => {
  let t: TestApp;
  let firm: TestFirm;
  let leadId: string;
  let callId: string;
  /** The bodies curl sends, made in beforeAll (a describe skipped by a filter makes none). */
  let folder: string;
  const FILLS = ['a', '['] as const;
  const bodyFile = (size: number, fill: 'a' | '[' = 'a') => join(folder, `${fill === 'a' ? 'plain' : 'deep'}-${size}`);

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'refusal-bodies-'));
    t = await startTestApp({ env: internalEnv });
    firm = await createFirm(t.app);
    callId = nextCallId();
    leadId = (await ingestOk(t, firm.orgId, callId, fullCallDocument())).lead_id as string;
    for (const size of SIZES) for (const fill of FILLS) writeFileSync(bodyFile(size, fill), Buffer.alloc(size, fill));
  });
  afterAll(async () => {
    rmSync(folder, { recursive: true, force: true });
    await t.close();
  });

  const json = { 'content-type': 'application/json' };
  const lead = () => `/v1/leads/${leadId}`;
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const REFUSALS: Refusal[] = [
    {
      name: '413 over the route limit',
      method: 'PATCH',
      path: lead,
      headers: () => ({ ...json, ...bearer(firm.keys['read-update-leads']) }),
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: '413 over the route limit, chunked (refused while read)',
      method: 'PATCH',
      path: lead,
      headers: () => ({ ...json, ...bearer(firm.keys['read-update-leads']) }),
      chunked: true,
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: '400 nested too deep, chunked (refused while read)',
      method: 'PATCH',
      path: lead,
      headers: () => ({ ...json, ...bearer(firm.keys['read-update-leads']) }),
      chunked: true,
      fill: '[',
      status: 400,
      code: 'invalid_request',
    },
    { name: '401 without a key', method: 'PATCH', path: lead, headers: () => json, status: 401, code: 'unauthorized' },
    {
      name: '401 without a key, chunked',
      method: 'PATCH',
      path: lead,
      headers: () => json,
      chunked: true,
      status: 401,
      code: 'unauthorized',
    },
    {
      name: '403 without the scope',
      method: 'PATCH',
      path: lead,
      headers: () => ({ ...json, ...bearer(firm.keys.read) }),
      status: 403,
      code: 'insufficient_scope',
    },
    {
      name: '415 a body where none is taken',
      method: 'POST',
      path: () => `/v1/calls/${callId}/recording-link`,
      headers: () => ({ 'content-type': 'text/plain', ...bearer(firm.keys.read) }),
      status: 415,
      code: 'unsupported_media_type',
    },
    {
      name: '405 a method the path does not have',
      method: 'POST',
      path: () => '/v1/calls',
      headers: () => json,
      status: 405,
      code: 'method_not_allowed',
    },
    { name: '404 no such path', method: 'POST', path: () => '/v1/nowhere', headers: () => json, status: 404, code: 'not_found' },
  ];
  const expected = (r: Refusal) => ({ status: r.status, connection: 'close', code: r.code, error: null });
  const exchanges = () => SIZES.flatMap((size) => REFUSALS.map((r) => ({ r, size })));

  it.each(['fetch', 'http'])("Node's %s reads each answer, and raises no error", async (client) => {
    const sent = exchanges().map(({ r, size }) => ({
      client,
      method: r.method,
      url: t.baseUrl + r.path(),
      headers: r.headers(),
      size,
      chunked: r.chunked === true,
      fill: r.fill ?? 'a',
    }));
    const { stdout } = await run(process.execPath, [CLIENTS, JSON.stringify(sent)], { timeout: 120_000 });
    const seen = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Seen);
    expect(seen.map((s, i) => ({ case: `${exchanges()[i].r.name}, ${exchanges()[i].size} bytes`, ...s }))).toEqual(
      exchanges().map(({ r, size }) => ({ case: `${r.name}, ${size} bytes`, ...expected(r) })),
    );
  });

  it('curl reads each answer and exits 0 (sending the body at once, without Expect: 100-continue)', async () => {
    const wrong: string[] = [];
    for (const { r, size } of exchanges()) {
      const headers = Object.entries({ ...r.headers(), expect: '', ...(r.chunked ? { 'transfer-encoding': 'chunked' } : {}) });
      const args = ['-sS', '-X', r.method, '-w', '\n%{http_code}', '--data-binary', `@${bodyFile(size, r.fill)}`];
      for (const [name, value] of headers) args.push('-H', `${name}:${value ? ` ${value}` : ''}`);
      const out = await run('curl', [...args, t.baseUrl + r.path()], { timeout: 60_000 }).catch(
        (e: { code?: number; stderr?: string }) => ({
          stdout: `exit ${e.code}: ${e.stderr}`,
        }),
      );
      const [body, status] = [out.stdout.slice(0, out.stdout.lastIndexOf('\n')), out.stdout.slice(out.stdout.lastIndexOf('\n') + 1)];
      const code = /"code":"([a-z_]+)"/.exec(body)?.[1];
      if (status !== String(r.status) || code !== r.code) wrong.push(`${r.name}, ${size} bytes: ${out.stdout.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });
});

interface Held {
  answer: string;
  /** From the first byte of the answer to the server's FIN, and to the connection's end. */
  finAfterMs: number | null;
  closedAfterMs: number;
  bytesSent: number;
}

/**
 * A sender that reads its answer and goes on sending (a half-open socket: it
 * does not close when the server's FIN comes), every `everyMs` a piece of
 * `pieceBytes`, or as fast as the socket takes it (everyMs 0).
 */
function holdOn(baseUrl: string, head: string, everyMs: number, pieceBytes: number): Promise<Held> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let answer = '';
    let answeredAt: number | null = null;
    let finAt: number | null = null;
    let bytesSent = 0;
    const piece = Buffer.alloc(pieceBytes, 'a');
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(head);
      const send = (): void => {
        if (socket.destroyed) return;
        bytesSent += piece.length;
        const more = socket.write(piece);
        if (everyMs > 0) setTimeout(send, everyMs);
        else if (more) setImmediate(send);
        else socket.once('drain', send);
      };
      send();
    });
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      answeredAt ??= Date.now();
      answer += d;
    });
    socket.on('end', () => (finAt = Date.now()));
    socket.on('error', () => undefined); // the reset once the server has closed: 'close' says when
    const giveUp = setTimeout(() => socket.destroy(), 120_000);
    socket.on('close', () => {
      clearTimeout(giveUp);
      const from = answeredAt ?? Date.now();
      resolve({ answer, finAfterMs: finAt === null ? null : finAt - from, closedAfterMs: Date.now() - from, bytesSent });
    });
  });
}

describe('a sender that goes on sending after its answer holds the connection no longer than the bounds', () => {
  const IDLE_MS = 2_000;
  let t: TestApp;
  let leadPath: string;

  beforeAll(async () => {
    // The whole-request bound is far off: only the lingering bounds can close these connections in time.
    t = await startTestApp({ env: { ...internalEnv, HTTP_IDLE_TIMEOUT_MS: String(IDLE_MS), HTTP_REQUEST_TIMEOUT_MS: '600000' } });
    const firm = await createFirm(t.app);
    leadPath = `/v1/leads/${(await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id as string}`;
  });
  afterAll(() => t.close());

  const head = () =>
    `PATCH ${leadPath} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${100 * LINGER_MAX_BYTES}\r\n\r\n`;

  it('trickling: answered 401 at once, FIN at once, closed at the idle bound however steadily it sends', async () => {
    const r = await holdOn(t.baseUrl, head(), 100, 1024);
    expect(r.answer).toMatch(/^HTTP\/1\.1 401 [^]*\r\nconnection: close\r\n/i);
    expect(r.finAfterMs).not.toBeNull();
    expect(r.finAfterMs!).toBeLessThan(IDLE_MS / 2);
    // Bytes kept coming every 100 ms, so the idle bound itself never fired: the linger's own bound, equal to it, did.
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(IDLE_MS - 200);
    expect(r.closedAfterMs).toBeLessThan(IDLE_MS + 5_000);
  });

  it(`flooding: closed once about LINGER_MAX_BYTES (${LINGER_MAX_BYTES / MiB} MiB) have come after the answer`, async () => {
    const r = await holdOn(t.baseUrl, head(), 0, 64 * 1024);
    expect(r.answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(r.closedAfterMs).toBeLessThan(IDLE_MS);
    // Read up to the bound (what the socket buffers hold on either side may be counted as sent, never read).
    expect(r.bytesSent).toBeGreaterThan(LINGER_MAX_BYTES);
    expect(r.bytesSent).toBeLessThan(LINGER_MAX_BYTES + 16 * MiB);
  });
});

describe('a server that stops ends its lingering connections at once', () => {
  it('closes while a sender still trickles a refused body, long before the linger bound', async () => {
    // The default bounds: a linger of 30 s (LINGER_MAX_MS) that only the stop can cut short.
    const t = await startTestApp();
    const { port } = new URL(t.baseUrl);
    let answered = false;
    let closedAt: number | null = null;
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(`PATCH /v1/leads/lead_x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`);
    });
    const drip = setInterval(() => socket.writable && socket.write('x'), 100);
    socket.on('data', () => (answered = true));
    socket.on('error', () => undefined);
    socket.on('close', () => (closedAt = Date.now()));
    try {
      await waitFor(() => answered, 'the 401');
      const stopping = Date.now();
      await t.close();
      await waitFor(() => closedAt !== null, 'the lingering connection to close');
      expect(closedAt! - stopping).toBeLessThan(LINGER_MAX_MS / 3);
    } finally {
      clearInterval(drip);
      socket.destroy();
    }
  });
});
