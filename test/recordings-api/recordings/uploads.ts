import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { type TestFirm } from '../../support/factories';
import { serviceEnv, startService, stopService } from '../../support/processes';
import { upload, uploadPath } from '../../support/recordings';
import { type StoreUnderTest } from '../../support/recording-stores';
import { TEST_INTERNAL_TOKEN, type TestApp } from '../../support/test-app';
import { waitFor } from '../../support/receiver';
import { caller, greeting, MAX_BYTES, sha256, type RecordingsContext } from './context';

const MiB = 1024 * 1024;

/** Uploads and removals through the internal routes, on the store and app ../recordings.cases.ts starts. */
export function uploadCases(context: () => RecordingsContext): void {
  let store: StoreUnderTest;
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  let newCall: RecordingsContext['newCall'];
  let withRecording: RecordingsContext['withRecording'];
  let hasRecording: RecordingsContext['hasRecording'];
  beforeAll(() => {
    ({ store, t, firm, other, newCall, withRecording, hasRecording } = context());
  });

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
      // These cases' limit is 100 KB: an api process of its own (same database and store) has the default, 256 MiB.
      // A second app in this process would log into the checked log.
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
}
