import { DATA_ID_CASES, MISSING_ID, observable, type DataIdKind } from '../support/id-cases';
import { startAppWithFirmData, type AppWithFirmData, type FirmWithData } from '../support/firm-data';
import type { TestApp } from '../support/test-app';
import { addTestModeData, type TestModeData } from '../support/test-mode-data';

type Ids = Record<DataIdKind, string>;

/** Every id-taking operation and filter (as test/access/isolation-matrix.cases.ts sends them across firms). */
const CASES = DATA_ID_CASES;

describe('test mode: a test key sees only test data, a live key never sees it', () => {
  let fixture: AppWithFirmData;
  let t: TestApp;
  let firm: FirmWithData;
  let test: TestModeData;
  let live: Ids;
  let testIds: Ids;
  const liveKey = () => firm.keys['read-update-leads'];
  const testKey = () => test.keys['read-update-leads'];

  beforeAll(async () => {
    fixture = await startAppWithFirmData({ hookPath: '/live' });
    ({ t, firm } = fixture);
    test = await addTestModeData(t, firm, fixture.rx.url('/test'));
    live = {
      call: firm.callIds[0],
      lead: firm.leadId,
      external: firm.externalId,
      event: firm.eventId,
      endpoint: firm.endpointId,
      delivery: firm.deliveryId,
    };
    testIds = {
      call: test.callIds[0],
      lead: test.leadId,
      external: test.externalId,
      event: test.eventId,
      endpoint: test.endpointId,
      delivery: test.deliveryId,
    };
  });
  afterAll(() => fixture.close());

  it('test keys begin svc_test_ and live keys svc_live_; a test key under the live start is not a key', async () => {
    expect(testKey()).toMatch(/^svc_test_[A-Za-z0-9_-]{43}$/);
    expect(liveKey()).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect((await t.get('/v1/account', { key: testKey() })).status).toBe(200);
    const swapped = await t.get('/v1/account', { key: testKey().replace(/^svc_test_/, 'svc_live_') });
    expect(swapped.status).toBe(401);
  });

  it("GET /v1/account shows the key's mode as api_key.livemode; the firm and its receptionist are the same in both modes", async () => {
    const asLive = await t.get('/v1/account', { key: liveKey() });
    const asTest = await t.get('/v1/account', { key: testKey() });
    expect(asLive.body.api_key.livemode).toBe(true);
    expect(asTest.body.api_key.livemode).toBe(false);
    const { api_key: _l, ...liveRest } = asLive.body;
    const { api_key: _t, ...testRest } = asTest.body;
    expect(testRest).toEqual(liveRest);
    const settingsLive = await t.get('/v1/receptionist', { key: liveKey() });
    const settingsTest = await t.get('/v1/receptionist', { key: testKey() });
    expect(settingsTest.status).toBe(200);
    expect(settingsTest.text).toBe(settingsLive.text);
  });

  describe.each([
    ['a test key', 'live', () => testKey(), () => live, () => testIds],
    ['a live key', 'test', () => liveKey(), () => testIds, () => live],
  ] as const)('%s, given a %s id', (_who, _mode, key, otherIds, ownIds) => {
    it.each(CASES.map((c) => [c.name, c] as const))('%s: answers exactly as for an id that does not exist', async (_name, c) => {
      const other = otherIds()[c.kind];
      const missing = MISSING_ID[c.kind](other);
      expect(observable(await c.send(t, other, key()), other)).toEqual(observable(await c.send(t, missing, key()), missing));
      // The key's own mode's id works through the same case, so the comparison is not between two broken requests.
      expect((await c.send(t, ownIds()[c.kind], key())).status).toBeLessThan(300);
    });
  });

  it('lists hold only their own mode: no list of either key names an id of the other mode', async () => {
    const liveOnly = [...firm.callIds, firm.leadId, firm.externalId, firm.eventId, firm.endpointId, firm.deliveryId];
    const testOnly = [...test.callIds, test.leadId, test.externalId, test.eventId, test.endpointId, test.deliveryId];
    for (const path of ['/v1/calls', '/v1/leads', '/v1/events', '/v1/webhook-endpoints', '/v1/webhook-deliveries']) {
      const asTest = await t.get(path, { key: testKey() });
      const asLive = await t.get(path, { key: liveKey() });
      expect({ path, statuses: [asTest.status, asLive.status] }).toEqual({ path, statuses: [200, 200] });
      for (const id of liveOnly) expect({ path, leaked: asTest.text.includes(id) ? id : null }).toEqual({ path, leaked: null });
      for (const id of testOnly) expect({ path, leaked: asLive.text.includes(id) ? id : null }).toEqual({ path, leaked: null });
    }
    const calls = await t.get('/v1/calls', { key: testKey() });
    expect(calls.body.calls.map((c: any) => c.call_id).sort()).toEqual([...test.callIds].sort());
  });

  it('every event envelope carries livemode: false in the test feed, true in the live one, in the list and by id', async () => {
    const testFeed = (await t.get('/v1/events', { key: testKey() })).body.events;
    const liveFeed = (await t.get('/v1/events', { key: liveKey() })).body.events;
    expect(testFeed.length).toBeGreaterThan(0);
    expect(liveFeed.length).toBeGreaterThan(0);
    expect(new Set(testFeed.map((e: any) => e.livemode))).toEqual(new Set([false]));
    expect(new Set(liveFeed.map((e: any) => e.livemode))).toEqual(new Set([true]));
    expect(testFeed.map((e: any) => e.type)).toEqual(expect.arrayContaining(['call.completed', 'lead.created', 'lead.updated']));
    const one = await t.get(`/v1/events/${test.eventId}`, { key: testKey() });
    expect(one.body).toMatchObject({ id: test.eventId, livemode: false, test: false });
  });

  it.each(['/v1/calls', '/v1/leads', '/v1/webhook-deliveries'])(
    "%s: one mode's next_cursor is refused in the other with 400 naming cursor",
    async (path) => {
      for (const [from, to] of [
        [liveKey(), testKey()],
        [testKey(), liveKey()],
      ]) {
        const first = await t.get(path, { key: from, query: { limit: 1 } });
        const cursor = first.body.next_cursor as string;
        expect(cursor).toEqual(expect.any(String));
        expect((await t.get(path, { key: from, query: { limit: 1, cursor } })).status).toBe(200);
        const r = await t.get(path, { key: to, query: { limit: 1, cursor } });
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ code: 'invalid_request', param: 'cursor' });
      }
    },
  );
});
