import { type TestFirm } from '../../support/factories';
import { getBytes, headerNames } from '../../support/recordings';
import { type TestApp } from '../../support/test-app';
import { caller, type RecordingsContext } from './context';

const HOUR = 60 * 60 * 1000;

/** Recording links, made with a key and played without one, on the store and app ../recordings.cases.ts starts. */
export function linkCases(context: () => RecordingsContext): void {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  let newCall: RecordingsContext['newCall'];
  let withRecording: RecordingsContext['withRecording'];
  let createLink: RecordingsContext['createLink'];
  let tokens: string[];
  beforeAll(() => {
    ({ t, firm, other, newCall, withRecording, createLink, tokens } = context());
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

    it('a retry with the same Idempotency-Key answers the same link (made once), which the table keeps only sealed', async () => {
      const callId = await withRecording();
      const headers = { 'Idempotency-Key': `link-${callId}` };
      const first = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read, headers });
      expect(first.status).toBe(201);
      const token = String(first.body.url).split('/').pop()!;
      tokens.push(token);
      const again = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read, headers });
      expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([201, 'true', first.text]);
      expect(again.headers.get('cache-control')).toBe('no-store');
      expect(await t.sql('SELECT count(*)::int AS n FROM recording_links WHERE call_id = $1', [callId])).toEqual([{ n: 1 }]);
      // The url is a credential: the stored answer holds neither it nor its token in any readable form.
      const stored = JSON.stringify(await t.sql('SELECT * FROM idempotency_keys WHERE idempotency_key = $1', [headers['Idempotency-Key']]));
      expect(stored).toContain('"status_code":201');
      expect(stored).not.toContain(token);
      expect(stored).not.toContain(Buffer.from(token).toString('base64'));
      // Another key of the firm sending the same idempotency key gets a link of its own.
      const theirs = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys['read-update-leads'], headers });
      expect([theirs.status, theirs.headers.get('idempotent-replayed')]).toEqual([201, null]);
      tokens.push(String(theirs.body.url).split('/').pop()!);
      expect(theirs.body.url).not.toBe(first.body.url);
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
}
