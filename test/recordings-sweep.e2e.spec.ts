import { SchedulerRegistry } from '@nestjs/schedule';
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
    const t = await startTestApp({ env: { ...store.env, ROLE: role, RECORDING_SWEEP_GRACE: '10m' } });
    try {
      const timer = t.app.get(SchedulerRegistry).getInterval('recording-sweep') as unknown as IntervalTimer;
      expect(timer._repeat).toBe(15 * 60_000);
      // An object no row points to, past the grace period on the application clock.
      const orphan = `${randomUUID()}/${randomUUID()}.ogg`;
      await t.app.get<RecordingStore>(RECORDING_STORE).put(orphan, Readable.from([fixture('receptionist-greeting.ogg')]));
      t.clock.advance(GRACE_MS + 60_000);

      await timer._onTimeout(); // exactly what the timer runs every 15 minutes
      expect((await store.objects()).includes(orphan)).toBe(!sweeps);
      // On api it was the role that kept it: a sweep called directly would have removed it.
      if (!sweeps) {
        expect((await t.app.get(RecordingSweeper).sweep()).deleted).toBeGreaterThanOrEqual(1);
        expect(await store.objects()).not.toContain(orphan);
      }
    } finally {
      await t.close();
    }
  });
});
