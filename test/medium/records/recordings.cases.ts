import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { ApiKeyService } from '../../../src/auth';
import type { ApiPrincipal } from '../../../src/common/http/principal';
import { IngestionService } from '../../../src/ingestion';
import {
  RECORDING_STORE,
  RecordingLinksService,
  RecordingSweeper,
  RecordingsService,
  type Playback,
  type RecordingStore,
} from '../../../src/recordings';
import { nextCallId, unansweredCallDocument } from '../../support/call-documents';
import { createFirm, type TestFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';
import { RECORDING_STORES, startStore, type StoreUnderTest } from '../../support/recording-stores';
import { fixture } from '../../support/recordings';

const HOUR = 3_600_000;
const GRACE_MS = 10 * 60_000;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();
const caller = fixture('injury-caller.ogg');
const greeting = fixture('receptionist-greeting.ogg');

/** The bytes a playback streams (its range, or the whole object). */
async function bytesOf(p: Playback): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of p.object.stream(p.range ?? undefined)) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/**
 * RecordingsService, RecordingLinksService and RecordingSweeper against the real database and each recording store
 * (files under DATA_DIR, an S3-protocol server), without HTTP: what an upload and a removal write, replacements and
 * their readers, audited reads, the links' life, and the sweep of objects no row points to.
 */
describe.each(RECORDING_STORES)('recordings (%s store)', (kind) => {
  let store: StoreUnderTest;
  let m: MediumService<RecordingsService>;
  let firm: TestFirm;
  let reader: ApiPrincipal;

  beforeAll(async () => {
    store = await startStore(kind);
    m = await newMediumService(RecordingsService, { env: { ...store.env, RECORDING_SWEEP_GRACE: '10m' } });
    firm = await createFirm(m.module);
    reader = await m.principal(firm.keys.read);
  });
  afterAll(async () => {
    await m?.close();
    await store?.close();
  });
  afterEach(() => m.clock.reset());

  const links = () => m.module.get(RecordingLinksService);
  const newCall = async (orgId = firm.orgId) => {
    const callId = nextCallId('call_rec');
    await m.module.get(IngestionService).ingest(orgId, unansweredCallDocument(), callId, { livemode: true });
    return callId;
  };
  const upload = (callId: string, body: Buffer, orgId = firm.orgId) =>
    m.sut.store(orgId, callId, Readable.from([body]), { via: 'internal_api', declaredLength: body.length });
  const withRecording = async (body = caller, orgId = firm.orgId) => {
    const callId = await newCall(orgId);
    await upload(callId, body, orgId);
    return callId;
  };
  const row = async (callId: string) => (await m.sql('SELECT id, storage_key FROM recordings WHERE call_id = $1', [callId]))[0];
  const hasRecording = async (callId: string) =>
    (await m.sql('SELECT has_recording FROM calls WHERE call_id = $1', [callId]))[0].has_recording;
  const audit = (action: string, orgId = firm.orgId) =>
    m.sql(
      'SELECT actor_type, actor_id, resource_type, resource_ids, details FROM audit_log WHERE org_id = $1 AND action = $2 ORDER BY id',
      [orgId, action],
    );
  const sweepPastGrace = async () => {
    m.clock.advance(2 * HOUR);
    return m.module.get(RecordingSweeper).sweep();
  };
  /** A link's token, from the url it is handed in once. */
  const createLink = async (callId: string, principal = reader) => {
    const created = await links().create(principal, callId);
    return { ...created, token: created.url.slice(`${m.config.baseUrl}/v1/recordings/`.length) };
  };
  const plays = async (token: string, range?: string) => links().open(token, { range }).then(bytesOf);

  it("the pipeline's routes write live calls only: a test-mode call answers 404 there and nothing changes; the owner's CLI reaches it", async () => {
    const callId = nextCallId('call_rec_test');
    await m.module.get(IngestionService).ingest(firm.orgId, unansweredCallDocument(), callId, { livemode: false });
    await expect(upload(callId, caller)).rejects.toThrow('The call');
    await expect(m.sut.remove(firm.orgId, callId, 'internal_api')).rejects.toThrow('The call');
    expect({ row: await row(callId), hasRecording: await hasRecording(callId), audited: await audit('recording.stored') }).toEqual({
      row: undefined,
      hasRecording: false,
      audited: [],
    });
    await m.sut.store(firm.orgId, callId, Readable.from([caller]), { via: 'cli' });
    expect(await hasRecording(callId)).toBe(true);
    expect((await m.sut.remove(firm.orgId, callId, 'cli')).removed).toBe(true);
  });

  it('store: the audio in the store under a fresh key, its size and hash in a row, has_recording, an audit entry', async () => {
    const callId = await newCall();
    expect(await hasRecording(callId)).toBe(false);
    expect(await upload(callId, caller)).toEqual({
      org_id: firm.orgId,
      call_id: callId,
      has_recording: true,
      size_bytes: caller.length,
      sha256: sha256(caller).toString('hex'),
      replaced: false,
    });
    expect(await hasRecording(callId)).toBe(true);
    const [stored] = await m.sql('SELECT storage_key, size_bytes, sha256 FROM recordings WHERE call_id = $1', [callId]);
    expect(stored.size_bytes).toBe(String(caller.length));
    expect(stored.sha256).toEqual(sha256(caller));
    expect(stored.storage_key).toMatch(new RegExp(`^${firm.orgId}/[0-9a-f-]{36}\\.ogg$`));
    expect((await store.read(stored.storage_key))?.equals(caller)).toBe(true);
    expect(await store.incomplete()).toEqual([]);
    expect((await audit('recording.stored')).at(-1)).toEqual({
      actor_type: 'system',
      actor_id: 'internal_api',
      resource_type: 'call',
      resource_ids: [callId],
      details: { size_bytes: caller.length, replaced: false },
    });
  });

  it('store refuses a body that is not Ogg or is over RECORDING_MAX_BYTES, and an unknown call, writing nothing', async () => {
    const callId = await newCall();
    const before = await store.objects();
    const refusals: [Buffer, number | undefined, string][] = [
      [Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(5000, 1)]), undefined, 'unsupported_media_type'],
      [Buffer.from('Ogg'), undefined, 'unsupported_media_type'],
      [caller, 300 * 1024 * 1024, 'payload_too_large'],
    ];
    for (const [body, declaredLength, code] of refusals) {
      await expect(m.sut.store(firm.orgId, callId, Readable.from([body]), { via: 'internal_api', declaredLength })).rejects.toMatchObject({
        code,
      });
    }
    const theirs = await newCall((await createFirm(m.module)).orgId);
    for (const [orgId, id] of [
      [firm.orgId, 'call_does_not_exist'],
      [firm.orgId, theirs],
      ['not-a-uuid', theirs],
    ]) {
      await expect(upload(id, caller, orgId)).rejects.toMatchObject({ code: 'not_found' });
    }
    expect(await hasRecording(callId)).toBe(false);
    expect(await hasRecording(theirs)).toBe(false);
    expect(await m.sql('SELECT 1 FROM recordings WHERE call_id = ANY($1)', [[callId, theirs]])).toEqual([]);
    expect(await store.objects()).toEqual(before);
    expect(await store.incomplete()).toEqual([]);
  });

  it('replaces an earlier recording; the old object outlives readers already on it, then the sweep removes it', async () => {
    const callId = await withRecording(caller);
    const before = await row(callId);
    expect(await upload(callId, greeting)).toMatchObject({ size_bytes: greeting.length, replaced: true });
    const after = await row(callId);
    expect(after.id).toBe(before.id);
    expect(after.storage_key).not.toBe(before.storage_key);
    expect((await bytesOf(await m.sut.openForKey(reader, callId, {}))).equals(greeting)).toBe(true);
    // A reader that resolved the old key just before the replacement committed can still read all of it.
    expect((await store.read(before.storage_key))?.equals(caller)).toBe(true);
    // Past the grace, the sweep removes the object no row points to and keeps the current one.
    await sweepPastGrace();
    expect(await store.read(before.storage_key)).toBeNull();
    expect((await store.read(after.storage_key))?.equals(greeting)).toBe(true);
  });

  it('two first uploads racing leave one recording and, after the sweep, one object', async () => {
    const callId = await newCall();
    const before = new Set(await store.objects());
    const results = await Promise.all([upload(callId, caller), upload(callId, greeting)]);
    expect(results.map((r) => r.replaced).sort()).toEqual([false, true]);
    const rows = await m.sql('SELECT storage_key, size_bytes FROM recordings WHERE call_id = $1', [callId]);
    expect(rows).toHaveLength(1);
    const added = async () => (await store.objects()).filter((f) => !before.has(f));
    expect(await added()).toEqual(expect.arrayContaining([rows[0].storage_key]));
    await sweepPastGrace();
    expect(await added()).toEqual([rows[0].storage_key]);
    const kept = Number(rows[0].size_bytes) === caller.length ? caller : greeting;
    expect((await bytesOf(await m.sut.openForKey(reader, callId, {}))).equals(kept)).toBe(true);
  });

  it('remove: has_recording false, the object gone, audited; again it removes nothing; an unknown call is not found', async () => {
    const callId = await withRecording();
    const { storage_key: key } = await row(callId);
    expect(await m.sut.remove(firm.orgId, callId, 'internal_api')).toEqual({
      org_id: firm.orgId,
      call_id: callId,
      has_recording: false,
      removed: true,
    });
    expect(await hasRecording(callId)).toBe(false);
    expect(await store.read(key)).toBeNull();
    expect((await audit('recording.removed')).at(-1)).toMatchObject({
      actor_type: 'system',
      actor_id: 'internal_api',
      resource_ids: [callId],
    });
    expect((await m.sut.remove(firm.orgId, callId, 'internal_api')).removed).toBe(false);
    await expect(m.sut.remove(firm.orgId, 'call_nope', 'internal_api')).rejects.toMatchObject({ code: 'not_found' });
    await expect(m.sut.openForKey(reader, callId, {})).rejects.toMatchObject({ code: 'not_found' });
  });

  it('openForKey: the range asked for, If-Range only with the current validator, every fetch audited with the key', async () => {
    const callId = await withRecording(greeting);
    const whole = await m.sut.openForKey(reader, callId, {});
    expect({ range: whole.range, size: whole.object.size, etag: whole.etag }).toEqual({
      range: null,
      size: greeting.length,
      etag: expect.stringMatching(/^"[0-9a-f-]{36}"$/),
    });
    expect((await bytesOf(whole)).equals(greeting)).toBe(true);
    const part = await m.sut.openForKey(await m.principal(firm.keys['read-update-leads']), callId, { range: 'bytes=100-199' });
    expect(part.range).toEqual({ start: 100, end: 199 });
    expect((await bytesOf(part)).equals(greeting.subarray(100, 200))).toBe(true);
    const stale = await m.sut.openForKey(reader, callId, { range: 'bytes=0-9', ifRange: '"something-else"' });
    expect(stale.range).toBeNull();
    await stale.object.close();
    const current = await m.sut.openForKey(reader, callId, { range: 'bytes=0-9', ifRange: whole.etag });
    expect(current.range).toEqual({ start: 0, end: 9 });
    await current.object.close();
    const rows = (await audit('recording.fetched')).filter((r) => r.resource_ids[0] === callId);
    expect(rows.slice(0, 2)).toEqual([
      {
        actor_type: 'api_key',
        actor_id: firm.keyIds.read,
        resource_type: 'call',
        resource_ids: [callId],
        details: { status: 200, start: 0, end: greeting.length - 1, size_bytes: greeting.length },
      },
      {
        actor_type: 'api_key',
        actor_id: firm.keyIds['read-update-leads'],
        resource_type: 'call',
        resource_ids: [callId],
        details: { status: 206, start: 100, end: 199, size_bytes: greeting.length },
      },
    ]);
  });

  it("openForKey: another firm's call, an unknown call and a call without a recording are not found", async () => {
    const other = await createFirm(m.module);
    const theirs = await withRecording(caller, other.orgId);
    const mine = await withRecording();
    const bare = await newCall();
    for (const [principal, id] of [
      [await m.principal(other.keys.read), mine],
      [reader, theirs],
      [reader, 'call_unknown'],
      [reader, bare],
    ] as const) {
      await expect(m.sut.openForKey(principal, id, {})).rejects.toMatchObject({ code: 'not_found' });
    }
  });

  describe('recording links (RecordingLinksService)', () => {
    it('create: a one-hour link to the call, its 32-byte token stored only as a hash, audited', async () => {
      const callId = await withRecording();
      m.clock.freeze();
      const link = await createLink(callId);
      expect(link.callId).toBe(callId);
      expect(link.url).toBe(`http://api.test/v1/recordings/${link.token}`);
      expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(link.token, 'base64url')).toHaveLength(32);
      expect(link.expiresAt.getTime()).toBe(m.clock.now().getTime() + HOUR);
      const rows = await m.sql('SELECT * FROM recording_links WHERE call_id = $1', [callId]);
      expect(rows).toHaveLength(1);
      expect(rows[0].token_hash).toEqual(createHash('sha256').update(link.token).digest());
      expect(rows[0].created_by_key_id).toBe(firm.keyIds.read);
      expect(JSON.stringify(rows[0])).not.toContain(link.token);
      expect((await audit('recording_link.created')).at(-1)).toEqual({
        actor_type: 'api_key',
        actor_id: firm.keyIds.read,
        resource_type: 'recording_link',
        resource_ids: [rows[0].id],
        details: { call_id: callId, expires_at: link.expiresAt.toISOString() },
      });
    });

    it("each create makes a new link; another firm's call or one without a recording gets none", async () => {
      const callId = await withRecording();
      const [a, b] = [await createLink(callId), await createLink(callId)];
      expect(a.token).not.toBe(b.token);
      expect((await plays(a.token)).equals(caller)).toBe(true);
      expect((await plays(b.token)).equals(caller)).toBe(true);
      const other = await createFirm(m.module);
      const bare = await newCall();
      for (const [principal, id] of [
        [await m.principal(other.keys.read), callId],
        [reader, bare],
        [reader, 'call_unknown'],
      ] as const) {
        await expect(links().create(principal, id)).rejects.toMatchObject({ code: 'not_found' });
      }
      expect(await m.sql('SELECT count(*)::int AS n FROM recording_links WHERE call_id = ANY($1)', [[callId, bare]])).toEqual([{ n: 2 }]);
    });

    it('open: a malformed or unknown token is not found, and the error never carries it', async () => {
      const { token } = await createLink(await withRecording());
      for (const bad of ['short', 'A'.repeat(43), token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), `${token}x`]) {
        const refused = await links()
          .open(bad, {})
          .catch((e: Error) => e);
        expect(refused).toMatchObject({ code: 'not_found' });
        expect(JSON.stringify({ message: (refused as Error).message, ...(refused as object) })).not.toContain(bad);
      }
    });

    it('open: each start of playback is audited with the link as actor; no token anywhere in the audit log', async () => {
      const callId = await withRecording();
      const { token } = await createLink(callId);
      const [{ id: linkId }] = await m.sql('SELECT id FROM recording_links WHERE token_hash = $1', [
        createHash('sha256').update(token).digest(),
      ]);
      await plays(token); // no Range: a start
      await plays(token, 'bytes=0-'); // from byte 0: a start
      await plays(token, 'bytes=5000-9999'); // seeking: not a start
      await plays(token, 'bytes=-100'); // the tail: not a start
      await plays(token, 'bytes=1-0,4-5'); // ignored Range, whole file: a start
      const rows = (await audit('recording.played')).filter((r) => r.actor_id === linkId);
      const base = { actor_type: 'recording_link', actor_id: linkId, resource_type: 'call', resource_ids: [callId] };
      const details = { link_created_by_key_id: firm.keyIds.read, start: 0, end: caller.length - 1, size_bytes: caller.length };
      expect(rows).toEqual([
        { ...base, details: { ...details, status: 200 } },
        { ...base, details: { ...details, status: 206 } },
        { ...base, details: { ...details, status: 200 } },
      ]);
      expect(JSON.stringify(await m.sql('SELECT * FROM audit_log'))).not.toContain(token);
    });

    it('expires one hour after creation (moving the clock); a new link works again', async () => {
      const callId = await withRecording();
      const { token } = await createLink(callId);
      m.clock.advance(HOUR - 1000);
      expect((await plays(token)).equals(caller)).toBe(true);
      m.clock.advance(1000);
      await expect(links().open(token, {})).rejects.toMatchObject({ code: 'not_found' });
      expect((await plays((await createLink(callId)).token)).equals(caller)).toBe(true);
    });

    it('stops when the key that created it is revoked; a link made by another key keeps working', async () => {
      const firmB = await createFirm(m.module);
      const callId = await withRecording(caller, firmB.orgId);
      const byRead = await createLink(callId, await m.principal(firmB.keys.read));
      const byOther = await createLink(callId, await m.principal(firmB.keys['read-update-leads']));
      await m.module.get(ApiKeyService).revoke(firmB.keyIds.read);
      await expect(links().open(byRead.token, {})).rejects.toMatchObject({ code: 'not_found' });
      expect((await plays(byOther.token)).equals(caller)).toBe(true);
    });

    it('stops when the recording is removed, and stays stopped after a new upload', async () => {
      const callId = await withRecording();
      const { token } = await createLink(callId);
      expect((await plays(token)).equals(caller)).toBe(true);
      expect((await m.sut.remove(firm.orgId, callId, 'internal_api')).removed).toBe(true);
      await expect(links().open(token, {})).rejects.toMatchObject({ code: 'not_found' });
      expect(await m.sql('SELECT 1 FROM recording_links WHERE call_id = $1', [callId])).toEqual([]);
      await upload(callId, greeting);
      await expect(links().open(token, {})).rejects.toMatchObject({ code: 'not_found' });
      expect((await plays((await createLink(callId)).token)).equals(greeting)).toBe(true);
    });

    it("follows a replaced recording (the link is to the call's recording)", async () => {
      const callId = await withRecording(caller);
      const { token } = await createLink(callId);
      expect((await upload(callId, greeting)).replaced).toBe(true);
      expect((await plays(token)).equals(greeting)).toBe(true);
    });
  });

  describe('the sweep (RecordingSweeper)', () => {
    it('deletes, once past the grace period, objects whose row never committed or is gone, and nothing else', async () => {
      const kept = await withRecording();
      const keptKey = (await row(kept)).storage_key as string;
      // A crash between the write and the commit: the object is stored, no row ever points to it.
      const uncommitted = `${firm.orgId}/${randomUUID()}.ogg`;
      await m.module.get<RecordingStore>(RECORDING_STORE).put(uncommitted, Readable.from([greeting]));
      // A removal whose process died after the commit, before it removed the object.
      const removed = await withRecording();
      const removedKey = (await row(removed)).storage_key as string;
      await m.sql('DELETE FROM recordings WHERE call_id = $1', [removed]);
      const all = [keptKey, uncommitted, removedKey].sort();
      const present = async () => (await store.objects()).filter((k) => all.includes(k));
      expect(await present()).toEqual(all);

      const sweeper = m.module.get(RecordingSweeper);
      // Within the grace period an object may belong to an upload still on its way to its commit: all stay.
      expect((await sweeper.sweep()).deleted).toBe(0);
      expect(await present()).toEqual(all);

      m.clock.advance(GRACE_MS + 60_000);
      const run = await sweeper.sweep();
      expect(run.listed).toBeGreaterThanOrEqual(3);
      expect(run.deleted).toBeGreaterThanOrEqual(2);
      expect(await present()).toEqual([keptKey]);
      expect((await bytesOf(await m.sut.openForKey(reader, kept, {}))).equals(caller)).toBe(true);
      // A second pass finds nothing more to do.
      expect((await sweeper.sweep()).deleted).toBe(0);
    });
  });
});

describe('the schedule of the recording sweep', () => {
  let store: StoreUnderTest;
  beforeAll(async () => {
    store = await startStore('fs'); // the schedule does not depend on the store
  });
  afterAll(async () => {
    await store?.close();
  });

  /** The Node timer behind a registered @Interval: its period, and the callback the timer fires. */
  interface IntervalTimer {
    _repeat: number | null;
    _onTimeout(): Promise<void>;
  }

  it.each([
    ['api', false],
    ['worker', true],
    ['all', true],
  ] as const)('is registered every 15 minutes and, on ROLE=%s, sweeps when it fires: %s', async (role, sweeps) => {
    const m = await newMediumService(RecordingSweeper, {
      env: { ...store.env, ROLE: role, RECORDING_SWEEP_GRACE: '10m' },
      imports: [ScheduleModule.forRoot()],
    });
    try {
      const timer = m.module.get(SchedulerRegistry).getInterval('recording-sweep') as unknown as IntervalTimer;
      expect(timer._repeat).toBe(15 * 60_000);
      // An object no row points to, past the grace period on the application clock.
      const orphan = `${randomUUID()}/${randomUUID()}.ogg`;
      await m.module.get<RecordingStore>(RECORDING_STORE).put(orphan, Readable.from([greeting]));
      m.clock.advance(GRACE_MS + 60_000);

      await timer._onTimeout(); // exactly what the timer runs every 15 minutes
      expect((await store.objects()).includes(orphan)).toBe(!sweeps);
      // On api it was the role that kept it: a sweep called directly would have removed it.
      if (!sweeps) {
        expect((await m.sut.sweep()).deleted).toBeGreaterThanOrEqual(1);
        expect(await store.objects()).not.toContain(orphan);
      }
    } finally {
      await m.close();
    }
  });
});
