import { internalEnv } from '../support/call-documents';
import { DATA_ID_CASES, MISSING_ID, observable, pathCase, type IdCase, type IdKind } from '../support/id-cases';
import { createFirmWithData, type FirmWithData } from '../support/firm-data';
import { Receiver } from '../support/receiver';
import { tempDataDir } from '../support/recordings';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestKeys, simulateTestCall } from '../support/test-mode';

type Case = IdCase;

const CASES: Case[] = [
  ...DATA_ID_CASES,
  { ...pathCase('POST', '/v1/test-helpers/calls/{call_id}/reprocess', 'call_id', 'testCall', { lead: false }), testMode: true },
];

describe('no firm sees another: every id-taking operation, path and filter', () => {
  const data = tempDataDir();
  let t: TestApp;
  let rx: Receiver;
  let a: FirmWithData;
  let b: FirmWithData;
  /** Each firm's test key and test-mode call, for the cases that take only a test key. */
  const testMode = new Map<FirmWithData, { key: string; callId: string }>();
  const idOf = (f: FirmWithData, kind: IdKind): string =>
    kind === 'testCall'
      ? testMode.get(f)!.callId
      : { call: f.callIds[0], lead: f.leadId, external: f.externalId, event: f.eventId, endpoint: f.endpointId, delivery: f.deliveryId }[
          kind
        ];
  const keyOf = (f: FirmWithData, c: Case): string => (c.testMode ? testMode.get(f)!.key : f.keys['read-update-leads']);

  beforeAll(async () => {
    rx = await Receiver.start();
    t = await startTestApp({ env: { ...internalEnv, DATA_DIR: data.dir, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    [a, b] = await Promise.all([createFirmWithData(t, rx.url('/a')), createFirmWithData(t, rx.url('/b'))]);
    for (const f of [a, b]) {
      const key = (await createTestKeys(t, f.orgId))['read-update-leads'];
      testMode.set(f, { key, callId: (await simulateTestCall(t, key)).call_id });
    }
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
    data.cleanup();
  });

  /** A's rows that any of B's requests could change, to show nothing did. */
  const aState = async () => ({
    lead: await t.sql(`SELECT status, updated_at FROM leads WHERE org_id = $1 ORDER BY lead_id`, [a.orgId]),
    calls: await t.sql(`SELECT call_id, lead_id, updated_at FROM calls WHERE org_id = $1 ORDER BY call_id`, [a.orgId]),
    deliveries: await t.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE org_id = $1`, [a.orgId]),
    events: await t.sql(`SELECT count(*)::int AS n FROM events WHERE org_id = $1`, [a.orgId]),
    links: await t.sql(`SELECT count(*)::int AS n FROM recording_links WHERE org_id = $1`, [a.orgId]),
  });

  it.each(CASES.map((c) => [c.name + ` (${c.param})`, c] as const))(
    '%s: a key of B gets for A’s id exactly what it gets for an id that does not exist',
    async (_name, c) => {
      const key = keyOf(b, c);
      const foreign = idOf(a, c.kind);
      const missing = MISSING_ID[c.kind](foreign);
      const forForeign = await c.send(t, foreign, key);
      const forMissing = await c.send(t, missing, key);
      expect(observable(forForeign, foreign)).toEqual(observable(forMissing, missing));
      // And B's own id works through the same case, so the comparison is not between two broken requests.
      const own = await c.send(t, idOf(b, c.kind), key);
      expect(own.status).toBeLessThan(300);
    },
  );

  it('none of B’s requests above changed anything of A (run again, state compared)', async () => {
    const before = await aState();
    for (const c of CASES) await c.send(t, idOf(a, c.kind), keyOf(b, c));
    expect(await aState()).toEqual(before);
  });

  it('B’s lists and details never contain any id of A', async () => {
    const key = b.keys['read-update-leads'];
    const aIds = [...a.callIds, a.leadId, a.externalId, a.eventId, a.endpointId, a.deliveryId, a.orgId];
    for (const path of ['/v1/account', '/v1/calls', '/v1/leads', '/v1/events', '/v1/webhook-endpoints', '/v1/webhook-deliveries']) {
      const r = await t.get(path, { key });
      expect({ path, status: r.status }).toEqual({ path, status: 200 });
      for (const id of aIds) expect({ path, leaked: r.text.includes(id) ? id : null }).toEqual({ path, leaked: null });
    }
  });

  it('every operation of the document that takes an id or an id filter is in the matrix', async () => {
    const doc = (await t.get('/v1/openapi.json')).body;
    const covered = new Set(CASES.map((c) => `${c.operation} ${c.param}`));
    const idParam = /(^|_)(id|ids|after|cursor)$/;
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (!path.startsWith('/v1/') || path.startsWith('/v1/recordings/')) continue;
      for (const [method, op] of Object.entries<any>(item)) {
        // An operation with no success answer (HEAD on a recording: always 405) reads nothing of anyone.
        if (!Object.keys(op.responses ?? {}).some((status) => status.startsWith('2'))) continue;
        for (const p of op.parameters ?? []) {
          if (!idParam.test(p.name) || p.name === 'cursor') continue;
          if (!covered.has(`${method} ${path} ${p.name}`)) missing.push(`${method} ${path} ${p.name}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('a recording link token names one recording only: it serves A’s audio and nothing of B', async () => {
    const r = await t.get(`/v1/recordings/${a.linkToken}`);
    expect(r.status).toBe(200);
    const unknown = await t.get(`/v1/recordings/${a.linkToken.slice(0, -4)}zzzz`);
    expect(unknown.status).toBe(404);
  });
});

/**
 * Kept apart on purpose: cursors are being bound to the firm that received
 * them (src/common/pagination/cursor.ts, another branch). Until that is
 * merged, B's key may page through A's cursor position; the expectation is
 * the issue's: 400 invalid_request naming the cursor parameter.
 */
describe('cursors are bound to the firm they were issued to', () => {
  let t: TestApp;
  let rx: Receiver;
  const data = tempDataDir();
  let a: FirmWithData;
  let b: FirmWithData;

  beforeAll(async () => {
    rx = await Receiver.start();
    t = await startTestApp({ env: { ...internalEnv, DATA_DIR: data.dir, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    [a, b] = await Promise.all([createFirmWithData(t, rx.url('/a')), createFirmWithData(t, rx.url('/b'))]);
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
    data.cleanup();
  });

  it.each(['/v1/calls', '/v1/leads', '/v1/webhook-deliveries'])(
    '%s: A’s next_cursor is refused for B with 400 naming cursor',
    async (path) => {
      const first = await t.get(path, { key: a.keys['read-update-leads'], query: { limit: 1 } });
      expect(first.status).toBe(200);
      const cursor = first.body.next_cursor as string;
      expect(cursor).toEqual(expect.any(String));
      expect((await t.get(path, { key: a.keys['read-update-leads'], query: { limit: 1, cursor } })).status).toBe(200);
      const r = await t.get(path, { key: b.keys['read-update-leads'], query: { limit: 1, cursor } });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('invalid_request');
      expect(JSON.stringify(r.body)).toContain('cursor');
    },
  );
});
