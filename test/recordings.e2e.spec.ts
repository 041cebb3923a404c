import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createFirm, type TestFirm } from './support/factories';
import { serviceEnv, startService, stopService } from './support/processes';
import { fixture, getBytes, headerNames, insertCall, upload, uploadPath } from './support/recordings';
import { RECORDING_STORES, startStore, type StoreUnderTest } from './support/recording-stores';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from './support/test-app';
import { waitFor } from './support/receiver';

const MAX_BYTES = 100_000;
const MiB = 1024 * 1024;
const HOUR = 60 * 60 * 1000;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();

/**
 * The HTTP contract of recordings, on each store: the upload's body stage (415, 413, streaming, abandoned uploads),
 * the answers' status and headers (ranges, If-Range, HEAD, no CORS on links), scopes, 404s, the document and the
 * logs. What uploads, removals, reads and links write and allow is tested on the services:
 * test/medium/recordings.spec.ts.
 */
describe.each(RECORDING_STORES)('call recordings (%s store)', (kind) => {
  let store: StoreUnderTest;
  // Every log line the app writes during this whole file, to prove no link token is ever logged.
  const logLines: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => logLines.push(chunk.toString('utf8')));
  /** Every token this file was handed. */
  const tokens: string[] = [];

  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  const caller = fixture('injury-caller.ogg');
  const greeting = fixture('receptionist-greeting.ogg');

  beforeAll(async () => {
    store = await startStore(kind);
    t = await startTestApp({
      env: { ...store.env, INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN, RECORDING_MAX_BYTES: String(MAX_BYTES), LOG_LEVEL: 'debug' },
      logStream,
    });
    firm = await createFirm(t.app);
    other = await createFirm(t.app);
  });
  afterAll(async () => {
    await t?.close();
    await store?.close();
  });

  let n = 0;
  const newCall = async (orgId = firm.orgId) => {
    const callId = `call_rec${++n}_${Math.random().toString(36).slice(2, 8)}`;
    await insertCall(t, orgId, callId);
    return callId;
  };
  const withRecording = async (body = caller, orgId = firm.orgId) => {
    const callId = await newCall(orgId);
    const r = await upload(t, orgId, callId, body);
    expect(r.status).toBe(200);
    return callId;
  };
  const createLink = async (callId: string, key = firm.keys.read) => {
    const r = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key });
    expect(r.status).toBe(201);
    const token = r.body.url.slice(`${t.config.baseUrl}/v1/recordings/`.length);
    tokens.push(token);
    return { token, path: `/v1/recordings/${token}`, body: r.body, headers: r.headers };
  };
  const hasRecording = async (orgId: string, callId: string) =>
    (await t.sql('SELECT has_recording FROM calls WHERE org_id = $1 AND call_id = $2', [orgId, callId]))[0].has_recording;

  describe('ingestion (internal PUT and DELETE)', () => {
    it('streams an Ogg body to the store and sets has_recording', async () => {
      const callId = await newCall();
      expect(await hasRecording(firm.orgId, callId)).toBe(false);
      const r = await upload(t, firm.orgId, callId, caller);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        org_id: firm.orgId,
        call_id: callId,
        has_recording: true,
        size_bytes: caller.length,
        sha256: sha256(caller).toString('hex'),
        replaced: false,
      });
      expect(await hasRecording(firm.orgId, callId)).toBe(true);
      const [row] = await t.sql('SELECT storage_key, size_bytes, sha256 FROM recordings WHERE org_id = $1 AND call_id = $2', [
        firm.orgId,
        callId,
      ]);
      expect(row.size_bytes).toBe(String(caller.length));
      expect(row.sha256).toEqual(sha256(caller));
      expect(row.storage_key).toMatch(new RegExp(`^${firm.orgId}/[0-9a-f-]{36}\\.ogg$`));
      expect((await store.read(row.storage_key))?.equals(caller)).toBe(true);
      expect(await store.incomplete()).toEqual([]);
    });

    it('accepts audio/ogg with parameters', async () => {
      const callId = await newCall();
      const r = await upload(t, firm.orgId, callId, greeting, { 'content-type': 'audio/ogg; codecs=opus' });
      expect(r.status).toBe(200);
      expect(r.body.size_bytes).toBe(greeting.length);
    });

    const refusedWritingNothing = async (callId: string, objectsBefore: string[]) => {
      expect(await hasRecording(firm.orgId, callId)).toBe(false);
      expect(await t.sql('SELECT 1 FROM recordings WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId])).toEqual([]);
      expect(await store.objects()).toEqual(objectsBefore);
      expect(await store.incomplete()).toEqual([]);
    };

    it('refuses a body that is not Ogg (415), writing nothing', async () => {
      const callId = await newCall();
      const before = await store.objects();
      const wav = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(5000, 1)]);
      const r = await upload(t, firm.orgId, callId, wav);
      expect(r.status).toBe(415);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.body).toMatchObject({ status: 415, code: 'unsupported_media_type' });
      expect(r.body.detail).toContain('OggS');
      await refusedWritingNothing(callId, before);
    });

    it('refuses an empty or too short body as not Ogg', async () => {
      const callId = await newCall();
      const before = await store.objects();
      for (const body of [Buffer.alloc(0), Buffer.from('Ogg')]) {
        const r = await upload(t, firm.orgId, callId, body);
        expect(r.status).toBe(415);
        expect(r.body.code).toBe('unsupported_media_type');
      }
      await refusedWritingNothing(callId, before);
    });

    it('refuses another content type with a 415 that names audio/ogg', async () => {
      const callId = await newCall();
      const before = await store.objects();
      for (const type of ['application/octet-stream', 'application/json']) {
        const r = await upload(t, firm.orgId, callId, caller, { 'content-type': type });
        expect(r.status).toBe(415);
        expect(r.body.code).toBe('unsupported_media_type');
        expect(r.body.detail).toContain('audio/ogg');
      }
      await refusedWritingNothing(callId, before);
    });

    it('refuses a body over RECORDING_MAX_BYTES (413) by its Content-Length, writing nothing', async () => {
      const callId = await newCall();
      const before = await store.objects();
      const big = Buffer.concat([caller, caller, caller]);
      expect(big.length).toBeGreaterThan(MAX_BYTES);
      const r = await upload(t, firm.orgId, callId, big);
      expect(r.status).toBe(413);
      expect(r.body).toMatchObject({ status: 413, code: 'payload_too_large', max_bytes: MAX_BYTES });
      await refusedWritingNothing(callId, before);
    });

    it('refuses a chunked body that grows past the limit while streaming (413), writing nothing', async () => {
      const callId = await newCall();
      const before = await store.objects();
      const chunks = [caller, caller, caller];
      const body = new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(new Uint8Array(next));
          else controller.close();
        },
      });
      const res = await fetch(new URL(uploadPath(firm.orgId, callId), t.baseUrl), {
        method: 'PUT',
        headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}`, 'content-type': 'audio/ogg' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ code: 'payload_too_large', max_bytes: MAX_BYTES });
      await refusedWritingNothing(callId, before);
    });

    it("answers 404 for an unknown call, another firm's call and a malformed firm id", async () => {
      const theirs = await newCall(other.orgId);
      for (const [orgId, callId] of [
        [firm.orgId, 'call_does_not_exist'],
        [firm.orgId, theirs],
        ['not-a-uuid', theirs],
      ]) {
        const r = await upload(t, orgId, callId, caller);
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('not_found');
      }
      expect(await hasRecording(other.orgId, theirs)).toBe(false);
    });

    it('needs INTERNAL_API_TOKEN', async () => {
      const callId = await newCall();
      const r = await t.request('PUT', uploadPath(firm.orgId, callId), { rawBody: caller, headers: { 'content-type': 'audio/ogg' } });
      expect(r.status).toBe(401);
      const withKey = await t.request('PUT', uploadPath(firm.orgId, callId), {
        key: firm.keys.read,
        rawBody: caller,
        headers: { 'content-type': 'audio/ogg' },
      });
      expect(withKey.status).toBe(401);
      const del = await t.request('DELETE', uploadPath(firm.orgId, callId), { key: firm.keys.read });
      expect(del.status).toBe(401);
      expect(await hasRecording(firm.orgId, callId)).toBe(false);
    });

    it('no other route takes an audio/ogg body', async () => {
      const callId = await withRecording();
      const r = await t.request('POST', `/v1/calls/${callId}/recording-link`, {
        key: firm.keys.read,
        rawBody: caller,
        headers: { 'content-type': 'audio/ogg' },
      });
      expect(r.status).toBe(415);
      expect(r.body.code).toBe('unsupported_media_type');
    });

    it('an upload the client abandons half-way, a 5 MiB part in, writes nothing and leaves nothing pending', async () => {
      // This file's limit is 100 KB: an api process of its own (same database and store) has the default, 256 MiB.
      // A second app in this process would log into this file's checked log.
      const big = await startService('api', serviceEnv(t.databaseUrl, store.env));
      try {
        const callId = await newCall();
        const before = await store.objects();
        const body = Buffer.concat([caller, randomBytes(12 * MiB)]);
        const req = httpRequest(new URL(uploadPath(firm.orgId, callId), big.baseUrl!), {
          method: 'PUT',
          headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}`, 'content-type': 'audio/ogg', 'content-length': String(body.length) },
        });
        req.on('error', () => undefined);
        // Past one 5 MiB part: fs has a tmp/ file, s3 a multipart upload with a part on its way.
        req.write(body.subarray(0, 6 * MiB));
        await waitFor(() => store.writing(), 'the store to show the upload under way', 30_000);
        req.destroy();
        // fs removes its tmp/ part; s3 aborts the multipart upload, so no part is left stored.
        await waitFor(async () => (await store.incomplete()).length === 0, 'the abandoned write to be cleaned up', 30_000);
        await refusedWritingNothing(callId, before);
      } finally {
        await stopService(big, 'SIGTERM');
      }
    });

    it('DELETE answers 200 with what it removed, 200 removed false again, 404 for an unknown call', async () => {
      const callId = await withRecording();
      const r = await t.request('DELETE', uploadPath(firm.orgId, callId), { key: TEST_INTERNAL_TOKEN });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ org_id: firm.orgId, call_id: callId, has_recording: false, removed: true });
      const again = await t.request('DELETE', uploadPath(firm.orgId, callId), { key: TEST_INTERNAL_TOKEN });
      expect(again.status).toBe(200);
      expect(again.body.removed).toBe(false);
      expect((await t.request('DELETE', uploadPath(firm.orgId, 'call_nope'), { key: TEST_INTERNAL_TOKEN })).status).toBe(404);
      expect((await t.get(`/v1/calls/${callId}/recording`, { key: firm.keys.read })).status).toBe(404);
    });
  });

  describe('GET /v1/calls/{call_id}/recording', () => {
    let callId: string;
    const size = caller.length;
    beforeAll(async () => {
      callId = await withRecording(caller);
    });
    const get = (headers: Record<string, string> = {}, key = firm.keys.read) =>
      getBytes(t, `/v1/calls/${callId}/recording`, { key, headers });

    it('streams the whole file as audio/ogg with Accept-Ranges and Content-Length', async () => {
      const r = await get();
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('audio/ogg');
      expect(r.headers.get('accept-ranges')).toBe('bytes');
      expect(r.headers.get('content-length')).toBe(String(size));
      expect(r.headers.get('content-range')).toBeNull();
      expect(r.bytes.equals(caller)).toBe(true);
    });

    it.each([
      ['bytes=0-99', 0, 99],
      ['bytes=0-0', 0, 0],
      ['bytes=1000-', 1000, size - 1],
      ['bytes=-500', size - 500, size - 1],
      [`bytes=${size - 1}-`, size - 1, size - 1],
      [`bytes=${size - 10}-${size + 5000}`, size - 10, size - 1],
      [`bytes=-${size + 100}`, 0, size - 1],
      ['BYTES=5-9', 5, 9],
      [' bytes=5-9 ', 5, 9],
    ])('Range %j answers 206 with exactly bytes %i-%i', async (range, start, end) => {
      const r = await get({ range });
      expect(r.status).toBe(206);
      expect(r.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
      expect(r.headers.get('content-length')).toBe(String(end - start + 1));
      expect(r.headers.get('accept-ranges')).toBe('bytes');
      expect(r.headers.get('content-type')).toBe('audio/ogg');
      expect(r.bytes.equals(caller.subarray(start, end + 1))).toBe(true);
    });

    it.each([
      ['several ranges', 'bytes=0-9,20-29'],
      ['several ranges, one empty', 'bytes=0-9,'],
      ['garbage', 'garbage'],
      ['empty', ''],
      ['another unit', 'items=0-9'],
      ['no unit', '0-9'],
      ['no positions', 'bytes=-'],
      ['last before first', 'bytes=9-5'],
      ['start past the end', `bytes=${size}-`],
      ['start far past the end', `bytes=${size + 1000}-${size + 2000}`],
      ['zero suffix', 'bytes=-0'],
      ['negative', 'bytes=-5-9'],
      ['huge number', 'bytes=99999999999999999999-'],
      ['spaces inside', 'bytes = 0 - 9'],
    ])('Range with %s (%j) is ignored: 200 and the whole file', async (_label, range) => {
      const r = await get({ range });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-range')).toBeNull();
      expect(r.headers.get('content-length')).toBe(String(size));
      expect(r.bytes.equals(caller)).toBe(true);
    });

    it('honours If-Range only with the current ETag', async () => {
      const whole = await get();
      const etag = whole.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f-]{36}"$/);
      const same = await get({ range: 'bytes=0-9', 'if-range': etag });
      expect(same.status).toBe(206);
      expect(same.bytes.equals(caller.subarray(0, 10))).toBe(true);
      const stale = await get({ range: 'bytes=0-9', 'if-range': '"something-else"' });
      expect(stale.status).toBe(200);
      expect(stale.bytes.equals(caller)).toBe(true);
    });

    it('HEAD answers 405 with Allow: GET and a problem document', async () => {
      for (const key of [firm.keys.read, undefined]) {
        const r = await getBytes(t, `/v1/calls/${callId}/recording`, { method: 'HEAD', key });
        expect(r.status).toBe(405);
        expect(r.headers.get('allow')).toBe('GET');
        expect(r.headers.get('content-type')).toContain('application/problem+json');
      }
      // HTTP sends no body for HEAD; the same handler's problem document, through an inject:
      const injected = await t.app.inject({ method: 'HEAD', url: `/v1/calls/${callId}/recording` });
      expect(injected.statusCode).toBe(405);
      expect(injected.headers.allow).toBe('GET');
      expect(JSON.parse(injected.body)).toMatchObject({
        status: 405,
        code: 'method_not_allowed',
        detail: 'HEAD is not supported on this endpoint; use GET.',
      });
    });

    it('needs calls:recording (403 insufficient_scope) and a key (401)', async () => {
      const r = await t.get(`/v1/calls/${callId}/recording`, { key: firm.keys['read-no-transcripts'] });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'calls:recording' });
      expect((await t.get(`/v1/calls/${callId}/recording`)).status).toBe(401);
    });

    it("answers 404 for another firm's call, an unknown call and a call without a recording", async () => {
      const theirs = await withRecording(caller, other.orgId);
      const bare = await newCall();
      for (const [id, key] of [
        [callId, other.keys.read],
        [theirs, firm.keys.read],
        ['call_unknown', firm.keys.read],
        [bare, firm.keys.read],
      ]) {
        const r = await t.get(`/v1/calls/${id}/recording`, { key });
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('not_found');
      }
    });
  });

  describe('recording links', () => {
    it('POST answers 201 with a one-hour link, never cached', async () => {
      const callId = await withRecording();
      const before = t.clock.now().getTime();
      const link = await createLink(callId);
      const after = t.clock.now().getTime();
      expect(Object.keys(link.body).sort()).toEqual(['call_id', 'expires_at', 'url']);
      expect(link.body.call_id).toBe(callId);
      expect(link.body.url).toBe(`http://api.test/v1/recordings/${link.token}`);
      expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(link.token, 'base64url')).toHaveLength(32);
      const expires = Date.parse(link.body.expires_at);
      expect(link.body.expires_at).toBe(new Date(expires).toISOString());
      expect(expires).toBeGreaterThanOrEqual(before + HOUR);
      expect(expires).toBeLessThanOrEqual(after + HOUR);
      expect(link.headers.get('cache-control')).toBe('no-store');
    });

    it("POST needs calls:recording and the firm's own call with a recording", async () => {
      const callId = await withRecording();
      const denied = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys['read-no-transcripts-update-leads'] });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('insufficient_scope');
      expect((await t.request('POST', `/v1/calls/${callId}/recording-link`)).status).toBe(401);
      const bare = await newCall();
      for (const [id, key] of [
        [callId, other.keys.read],
        [bare, firm.keys.read],
        ['call_unknown', firm.keys.read],
      ]) {
        const r = await t.request('POST', `/v1/calls/${id}/recording-link`, { key });
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('not_found');
      }
      expect(await t.sql('SELECT 1 FROM recording_links WHERE call_id = ANY($1)', [[callId, bare]])).toEqual([]);
    });

    describe('GET /v1/recordings/{token}', () => {
      let callId: string;
      let link: Awaited<ReturnType<typeof createLink>>;
      const size = caller.length;
      beforeAll(async () => {
        callId = await withRecording(caller);
        link = await createLink(callId);
      });

      it('plays the whole file with no key', async () => {
        const r = await getBytes(t, link.path);
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toBe('audio/ogg');
        expect(r.headers.get('accept-ranges')).toBe('bytes');
        expect(r.headers.get('content-length')).toBe(String(size));
        expect(r.bytes.equals(caller)).toBe(true);
      });

      it.each([
        ['bytes=0-1023', 0, 1023],
        ['bytes=20000-', 20000, size - 1],
        ['bytes=-4096', size - 4096, size - 1],
        [`bytes=30000-${size * 2}`, 30000, size - 1],
      ])('Range %j answers 206 with exactly bytes %i-%i', async (range, start, end) => {
        const r = await getBytes(t, link.path, { headers: { range } });
        expect(r.status).toBe(206);
        expect(r.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`);
        expect(r.headers.get('content-length')).toBe(String(end - start + 1));
        expect(r.bytes.equals(caller.subarray(start, end + 1))).toBe(true);
      });

      it.each(['bytes=0-1,5-6', 'bytes=x-y', `bytes=${size}-`, 'bytes=-0', 'bytes=10-5'])(
        'Range %j is ignored: 200 and the whole file',
        async (range) => {
          const r = await getBytes(t, link.path, { headers: { range } });
          expect(r.status).toBe(200);
          expect(r.headers.get('content-range')).toBeNull();
          expect(r.bytes.equals(caller)).toBe(true);
        },
      );

      it('sends no cross-origin headers, even to a request with Origin', async () => {
        for (const headers of <Record<string, string>[]>[
          { origin: 'https://evil.example' },
          { origin: 'https://evil.example', range: 'bytes=0-9' },
          {},
        ]) {
          const r = await getBytes(t, link.path, { headers });
          expect([200, 206]).toContain(r.status);
          expect(headerNames(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
        }
        const missing = await getBytes(t, '/v1/recordings/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', {
          headers: { origin: 'https://evil.example' },
        });
        expect(missing.status).toBe(404);
        expect(headerNames(missing.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
        const preflight = await getBytes(t, link.path, {
          method: 'OPTIONS',
          headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
        });
        expect(headerNames(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      });

      it('HEAD answers 405 with Allow: GET', async () => {
        const r = await getBytes(t, link.path, { method: 'HEAD' });
        expect(r.status).toBe(405);
        expect(r.headers.get('allow')).toBe('GET');
        expect(r.headers.get('content-type')).toContain('application/problem+json');
        const injected = await t.app.inject({ method: 'HEAD', url: link.path });
        expect(injected.statusCode).toBe(405);
        expect(injected.headers.allow).toBe('GET');
        expect(JSON.parse(injected.body)).toMatchObject({ status: 405, code: 'method_not_allowed' });
        expect(injected.body).not.toContain(link.token);
      });

      it('answers 404 for a malformed or unknown token, without echoing it', async () => {
        for (const bad of ['short', 'A'.repeat(43), link.token.slice(0, -1) + (link.token.endsWith('A') ? 'B' : 'A'), `${link.token}x`]) {
          const r = await t.get(`/v1/recordings/${bad}`);
          expect(r.status).toBe(404);
          expect(r.body.code).toBe('not_found');
          expect(r.text).not.toContain(bad);
        }
      });
    });
  });

  it('documents the public routes in OpenAPI and leaves the internal ones out', async () => {
    const doc = (await t.get('/v1/openapi.json')).body;
    // Validated on its own: these paths with the schemas they use (the rest of the document is other contexts' business).
    const paths = ['/v1/calls/{call_id}/recording', '/v1/calls/{call_id}/recording-link', '/v1/recordings/{token}'];
    const schemas = ['Problem', 'ProblemFieldError', 'RecordingLinkDto'];
    await SwaggerParser.validate(
      structuredClone({
        ...doc,
        paths: Object.fromEntries(paths.map((p) => [p, doc.paths[p]])),
        webhooks: {},
        components: { ...doc.components, schemas: Object.fromEntries(schemas.map((n) => [n, doc.components.schemas[n]])) },
      }),
    );
    const rec = doc.paths['/v1/calls/{call_id}/recording'];
    expect(Object.keys(rec.get.responses)).toEqual(expect.arrayContaining(['200', '206', '401', '403', '404']));
    expect(rec.get.responses['206'].content['audio/ogg']).toEqual({
      schema: { type: 'string', format: 'binary', contentMediaType: 'audio/ogg' },
    });
    expect(rec.get['x-required-scope']).toBe('calls:recording');
    expect(rec.get.security).toEqual([{ api_key: [] }]);
    // HEAD is documented as refused: 405 with Allow: GET, to anyone; 400 and 404 only for a request target
    // that cannot be decoded (answered before any route: test/hostile-requests/fuzz-findings.cases.ts), 503 from a process shutting
    // down (test/outage.e2e.spec.ts).
    expect(Object.keys(rec.head.responses).sort()).toEqual(['400', '404', '405', '503']);
    expect(rec.head.security).toEqual([]);
    const link = doc.paths['/v1/calls/{call_id}/recording-link'].post;
    expect(Object.keys(link.responses)).toContain('201');
    expect(link.responses['201'].content['application/json'].schema.$ref).toBe('#/components/schemas/RecordingLinkDto');
    const play = doc.paths['/v1/recordings/{token}'];
    expect(play.get.security).toEqual([]);
    expect(Object.keys(play.get.responses)).toEqual(expect.arrayContaining(['200', '206', '404']));
    expect(Object.keys(play.head.responses).sort()).toEqual(['400', '404', '405', '503']);
    expect(Object.keys(play.get.responses)).toContain('400');
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/internal'))).toEqual([]);
  });

  it('a token sent to a mistyped path is not logged either', async () => {
    const callId = await withRecording();
    const link = await createLink(callId);
    expect((await t.get(`/V1/Recordings/${link.token}`)).status).toBe(404);
    expect((await t.get(`/v1/RECORDINGS/${link.token}`)).status).toBe(404);
  });

  it('refuses unknown query parameters with 400 naming them, on every recording route', async () => {
    const callId = await withRecording();
    const link = await createLink(callId);
    const tries = [
      await t.get(`/v1/calls/${callId}/recording`, { key: firm.keys.read, query: { download: '1' } }),
      await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read, query: { download: '1' } }),
      await t.get(link.path, { query: { download: '1' } }),
      await t.request('DELETE', uploadPath(firm.orgId, callId), { key: TEST_INTERNAL_TOKEN, query: { download: '1' } }),
    ];
    for (const r of tries) {
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_request', param: 'download' });
      expect(r.text).not.toContain(link.token);
    }
    expect(await hasRecording(firm.orgId, callId)).toBe(true);
  });

  // Every token handed out in this file so far (tests run in any order), plus links made and played here.
  it('logged the whole file without a single link token (the path is redacted)', async () => {
    const callId = await withRecording();
    for (let i = 0; i < 11; i++) {
      const link = await createLink(callId);
      expect((await t.get(`/v1/recordings/${link.token}`)).status).toBe(200);
    }
    const text = logLines.join('');
    expect(tokens.length).toBeGreaterThan(10);
    expect(text).toContain('/v1/recordings/[REDACTED]');
    for (const token of tokens) expect(text).not.toContain(token);
    // Nothing went wrong on the way (a failed file removal, say, would be a warning).
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });
});
