import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { RECORDING_STORE, RecordingSweeper, type RecordingStore } from '../src/recordings';
import { createFirm, type TestFirm } from './support/factories';
import { RECORDING_STORES, startStore, type StoreUnderTest } from './support/recording-stores';
import { fixture, getBytes, insertCall, upload } from './support/recordings';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from './support/test-app';

const GRACE_MS = 10 * 60_000;

describe.each(RECORDING_STORES)('the sweep of stored recordings no row points to (%s store)', (kind) => {
  let store: StoreUnderTest;
  let t: TestApp;
  let firm: TestFirm;

  beforeAll(async () => {
    store = await startStore(kind);
    t = await startTestApp({ env: { ...store.env, INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN, RECORDING_SWEEP_GRACE: '10m' } });
    firm = await createFirm(t.app);
  });
  afterAll(async () => {
    await t?.close();
    await store?.close();
  });

  const recorded = async () => {
    const callId = `call_sweep_${randomUUID().slice(0, 8)}`;
    await insertCall(t, firm.orgId, callId);
    expect((await upload(t, firm.orgId, callId, fixture('injury-caller.ogg'))).status).toBe(200);
    const [row] = await t.sql('SELECT storage_key FROM recordings WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId]);
    return { callId, key: row.storage_key as string };
  };

  it('deletes, once past the grace period, objects whose row never committed or is gone, and nothing else', async () => {
    const kept = await recorded();
    // A crash between the write and the commit: the object is stored, no row ever points to it.
    const uncommitted = `${firm.orgId}/${randomUUID()}.ogg`;
    await t.app.get<RecordingStore>(RECORDING_STORE).put(uncommitted, Readable.from([fixture('receptionist-greeting.ogg')]));
    // A removal whose process died after the commit, before it removed the object.
    const removed = await recorded();
    await t.sql('DELETE FROM recordings WHERE org_id = $1 AND call_id = $2', [firm.orgId, removed.callId]);
    const all = [kept.key, uncommitted, removed.key].sort();
    expect((await store.objects()).filter((k) => all.includes(k))).toEqual(all);

    const sweeper = t.app.get(RecordingSweeper);
    // Within the grace period an object may belong to an upload still on its way to its commit: all stay.
    expect((await sweeper.sweep()).deleted).toBe(0);
    expect((await store.objects()).filter((k) => all.includes(k))).toEqual(all);

    t.clock.advance(GRACE_MS + 60_000);
    const run = await sweeper.sweep();
    expect(run.listed).toBeGreaterThanOrEqual(3);
    expect(run.deleted).toBe(2);
    expect((await store.objects()).filter((k) => all.includes(k))).toEqual([kept.key]);
    const got = await getBytes(t, `/v1/calls/${kept.callId}/recording`, { key: firm.keys.read });
    expect(got.status).toBe(200);
    expect(got.bytes.equals(fixture('injury-caller.ogg'))).toBe(true);
    // A second pass finds nothing more to do.
    expect((await sweeper.sweep()).deleted).toBe(0);
  });
});
