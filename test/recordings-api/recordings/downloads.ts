import { type TestFirm } from '../../support/factories';
import { getBytes } from '../../support/recordings';
import { type TestApp } from '../../support/test-app';
import { caller, type RecordingsContext } from './context';

/** Reading a recording with a key, on the store and app ../recordings.cases.ts starts. */
export function downloadCases(context: () => RecordingsContext): void {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  let newCall: RecordingsContext['newCall'];
  let withRecording: RecordingsContext['withRecording'];
  beforeAll(() => {
    ({ t, firm, other, newCall, withRecording } = context());
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
}
