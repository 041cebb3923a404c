import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { checkExchange, toHeaders } from '../support/conformance';
import { createFirm, type TestFirm } from '../support/factories';
import { fixture, upload } from '../support/recordings';
import { sharedTestApp } from '../support/shared-app';
import { type TestApp } from '../support/test-app';

let t: TestApp;
let firm: TestFirm;
let callId: string;
let longCallId: string;
const audio = fixture('injury-caller.ogg');

/** What went over the wire (fetch would decompress it), decoded, and checked against the document like every answer. */
interface Wire {
  status: number;
  headers: Headers;
  /** The bytes as sent. */
  raw: Buffer;
  /** The bytes after undoing Content-Encoding. */
  plain: Buffer;
}

/** `key` null: no Authorization (a recording link is its own credential). */
function wireGet(path: string, headers: Record<string, string>, key: string | null = firm.keys.read): Promise<Wire> {
  const auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, t.baseUrl), { headers: { ...auth, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const plain = encoding === 'gzip' ? gunzipSync(raw) : encoding === 'br' ? brotliDecompressSync(raw) : raw;
        resolve({ status: res.statusCode!, headers: toHeaders(res.headers), raw, plain });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function jsonGet(path: string, acceptEncoding: string): Promise<Wire> {
  const r = await wireGet(path, { 'accept-encoding': acceptEncoding });
  const text = r.plain.toString('utf8');
  await checkExchange(t.baseUrl, 'GET', path, { status: r.status, headers: r.headers, body: JSON.parse(text), text });
  return r;
}

beforeAll(async () => {
  t = await sharedTestApp(internalEnv);
  firm = await createFirm(t.app);
  [callId, longCallId] = [nextCallId('call_gz'), nextCallId('call_gz_long')];
  await ingestOk(t, firm.orgId, callId, fullCallDocument());
  // About 1 MB of turns: a transcript answer spooled to a file and streamed (json-answer.ts).
  const turns = Array.from({ length: 4000 }, (_, i) => ({
    speaker: i % 2 ? 'caller' : 'receptionist',
    speaker_name: null,
    segment: 'intake',
    text: `turn ${i}: ${'the caller describes the accident again in some detail. '.repeat(4)}`,
    start_s: i * 2,
  }));
  const doc = fullCallDocument();
  await ingestOk(t, firm.orgId, longCallId, { ...doc, transcript: { ...doc.transcript, briefings: [], turns } });
  expect((await upload(t, firm.orgId, callId, audio)).status).toBe(200);
});

describe('JSON answers are compressed when the client asks', () => {
  it.each(['gzip', 'br'])('%s: the call detail, the same bytes and ETag as uncompressed, Vary on both', async (encoding) => {
    const plain = await jsonGet(`/v1/calls/${callId}`, 'identity');
    expect(plain.raw.length).toBeGreaterThan(1024);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('content-length')).toBe(String(plain.raw.length));
    const packed = await jsonGet(`/v1/calls/${callId}`, encoding);
    expect(packed.headers.get('content-encoding')).toBe(encoding);
    expect(packed.raw.length).toBeLessThan(plain.raw.length);
    expect(packed.plain.equals(plain.raw)).toBe(true);
    expect(packed.headers.get('etag')).toBe(plain.headers.get('etag'));
    for (const r of [plain, packed]) expect(r.headers.get('vary')).toMatch(/accept-encoding/i);
  });

  it('picks what the client prefers and accepts, and sends identity when it accepts neither', async () => {
    expect((await jsonGet('/v1/calls', 'gzip;q=1, br;q=0.5')).headers.get('content-encoding')).toBe('gzip');
    expect((await jsonGet('/v1/calls', 'deflate')).headers.get('content-encoding')).toBeNull();
    expect((await wireGet('/v1/calls', {})).headers.get('content-encoding')).toBeNull();
  });

  it('leaves answers under 1 KiB as they are, with Vary still sent', async () => {
    const r = await jsonGet('/v1/calls/call_unknown_here', 'gzip, br');
    expect(r.status).toBe(404);
    expect(r.raw.length).toBeLessThan(1024);
    expect(r.headers.get('content-encoding')).toBeNull();
    expect(r.headers.get('vary')).toMatch(/accept-encoding/i);
  });

  it.each(['gzip', 'br'])('%s: a spooled, streamed transcript arrives whole, with no Content-Length to be wrong', async (encoding) => {
    const path = `/v1/calls/${longCallId}/transcript`;
    const plain = await jsonGet(path, 'identity');
    expect(plain.raw.length).toBeGreaterThan(512 * 1024);
    expect(plain.headers.get('content-length')).toBe(String(plain.raw.length));
    const packed = await jsonGet(path, encoding);
    expect(packed.headers.get('content-encoding')).toBe(encoding);
    expect(packed.headers.get('content-length')).toBeNull();
    expect(packed.plain.equals(plain.raw)).toBe(true);
    expect(packed.raw.length).toBeLessThan(plain.raw.length / 5);
    expect(packed.headers.get('etag')).toBe(plain.headers.get('etag'));
  });
});

describe('audio is never compressed', () => {
  const recordingPath = () => `/v1/calls/${callId}/recording`;

  async function linkPath(): Promise<string> {
    const link = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read });
    expect(link.status).toBe(201);
    return new URL(String(link.body.url)).pathname;
  }

  it.each(['gzip', 'br', 'gzip, br, deflate'])(
    'the recording and its link, asked with %j: exact length, ranges, no Content-Encoding',
    async (ae) => {
      const targets: [string, string | null][] = [
        [recordingPath(), firm.keys.read],
        [await linkPath(), null],
      ];
      for (const [path, key] of targets) {
        const whole = await wireGet(path, { 'accept-encoding': ae }, key);
        expect(whole.status).toBe(200);
        expect(whole.headers.get('content-type')).toBe('audio/ogg');
        expect(whole.headers.get('content-encoding')).toBeNull();
        expect(whole.headers.get('content-length')).toBe(String(audio.length));
        expect(whole.headers.get('accept-ranges')).toBe('bytes');
        expect(whole.raw.equals(audio)).toBe(true);
        const part = await wireGet(path, { 'accept-encoding': ae, range: 'bytes=100-1299' }, key);
        expect(part.status).toBe(206);
        expect(part.headers.get('content-encoding')).toBeNull();
        expect(part.headers.get('content-length')).toBe('1200');
        expect(part.raw.equals(audio.subarray(100, 1300))).toBe(true);
        for (const r of [whole, part])
          await checkExchange(t.baseUrl, 'GET', path, { status: r.status, headers: r.headers, body: '', text: '' });
      }
    },
  );
});
