import http from 'node:http';
import pg from 'pg';
import { Database } from '../../src/database/sql';
import { EventsService, EventWaits } from '../../src/events';
import { insertEvent, onEachEventsPage, recordEvent, whenListable } from '../support/events';
import { createFirm, type TestFirm } from '../support/factories';
import { waitFor } from '../support/receiver';
import { startTestApp, type HttpResult, type TestApp } from '../support/test-app';

/** A waiting GET /v1/events whose settlement the test can look at without awaiting it. */
interface Pending {
  result: Promise<HttpResult>;
  settled: () => boolean;
  answeredAt: () => number;
}

describe('GET /v1/events?wait= (held until an event commits)', () => {
  let t: TestApp;
  let firm: TestFirm;
  let key: string;
  let waits: EventWaits;
  /** Every page query a request runs, by firm and type (a wrapper that calls through: the real query still runs). */
  let pageQueries: { orgId: string; type?: string }[];

  const record = (orgId: string, type: 'call.completed' | 'lead.created', data: Record<string, unknown> = {}) =>
    t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type, data }));

  function waitingGet(k: string, query: Record<string, string | number | undefined>): Pending {
    let done = false;
    let at = 0;
    const result = t.get('/v1/events', { key: k, query }).finally(() => {
      done = true;
      at = Date.now();
    });
    return { result, settled: () => done, answeredAt: () => at };
  }

  /** Resolves once at least `n` requests wait (each test leaves none waiting). */
  const waiting = (n: number) => waitFor(() => waits.waiting >= n, `${n} waiting requests`);

  beforeAll(async () => {
    t = await startTestApp();
    firm = await createFirm(t.app, { publish: false });
    key = firm.keys['read-no-transcripts'];
    waits = t.app.get(EventWaits);
    pageQueries = [];
    onEachEventsPage(t.app.get(EventsService), (feed, query) => pageQueries.push({ orgId: feed.orgId, type: query.type }));
  });
  afterAll(() => t.close());

  it('wait is documented with its bounds and refused outside them', async () => {
    const doc = (await t.get('/v1/openapi.json')).body;
    const param = doc.paths['/v1/events'].get.parameters.find((p: { name: string }) => p.name === 'wait');
    expect(param.schema).toMatchObject({ type: 'integer', minimum: 0, maximum: 30, default: 0 });
    expect(param.description).toMatch(/commits/);
    for (const bad of ['31', '-1', '1.5', 'soon']) {
      const r = await t.get('/v1/events', { key, query: { wait: bad } });
      expect(r.status).toBe(400);
      expect(r.body.detail).toMatch(/wait must be an integer from 0 to 30/);
    }
  });

  it('an event committed while a client waits reaches it within about a second, answered exactly as without wait', async () => {
    const f = await createFirm(t.app, { publish: false });
    const w = waitingGet(f.keys.read, { wait: 20 });
    await waiting(1);
    const e = await record(f.orgId, 'call.completed', { call_id: 'call_w1' });
    // An open transaction elsewhere in the cluster (another test file's) may hold the event back for a while: the second
    // counts from when it can be listed.
    const listableAt = whenListable(t, [e.envelope.id]);
    const r = await w.result;
    // About a second: the notification (or a held-back event's re-check, every 0.5 s at most), the page and the answer,
    // with room for a loaded machine; an unwoken waiter answers only at its 20 s.
    expect(w.answeredAt() - (await listableAt)).toBeLessThan(2000);
    expect(r.status).toBe(200);
    expect(r.body.events.map((x: { id: string }) => x.id)).toEqual([e.envelope.id]);
    expect(r.body).toEqual((await t.get('/v1/events', { key: f.keys.read })).body);
    expect(waits.waiting).toBe(0);
  });

  it('answers at once when an event after `after` already exists', async () => {
    const f = await createFirm(t.app, { publish: false });
    await record(f.orgId, 'lead.created');
    await waitFor(async () => (await t.get('/v1/events', { key: f.keys.read })).body.events.length === 1, 'the event to be listable');
    const started = Date.now();
    const r = await t.get('/v1/events', { key: f.keys.read, query: { wait: 20 } });
    expect(r.body.events).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('runs out with an empty page after about the seconds asked, having run a page query as it began and as it ran out, none between', async () => {
    const f = await createFirm(t.app, { publish: false });
    const started = Date.now();
    const queriesBefore = pageQueries.filter((q) => q.orgId === f.orgId).length;
    const r = await t.get('/v1/events', { key: f.keys.read, query: { wait: 1 } });
    const took = Date.now() - started;
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ events: [], has_more: false, next_after: null });
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(6000);
    // The second judges the key again (a key revoked while nothing happened answers 401, not an empty page).
    expect(pageQueries.filter((q) => q.orgId === f.orgId).length - queriesBefore).toBe(2);
  });

  it('respects type: another type neither wakes nor answers the waiting request', async () => {
    const f = await createFirm(t.app, { publish: false });
    const leads = waitingGet(f.keys.read, { wait: 20, type: 'lead.created' });
    await waiting(1);
    const probe = waitingGet(f.keys.read, { wait: 20 });
    await waiting(2);
    const queriesBefore = pageQueries.filter((q) => q.type === 'lead.created' && q.orgId === f.orgId).length;
    await record(f.orgId, 'call.completed');
    // The probe (any type) is answered: the notification has reached the process.
    expect((await probe.result).body.events[0].type).toBe('call.completed');
    expect(leads.settled()).toBe(false);
    expect(pageQueries.filter((q) => q.type === 'lead.created' && q.orgId === f.orgId).length).toBe(queriesBefore);
    const lead = await record(f.orgId, 'lead.created');
    const r = await leads.result;
    expect(r.body.events.map((x: { id: string }) => x.id)).toEqual([lead.envelope.id]);
  });

  it("another firm's event neither wakes nor answers a firm's waiting request", async () => {
    const [a, b] = [await createFirm(t.app, { publish: false }), await createFirm(t.app, { publish: false })];
    const waitA = waitingGet(a.keys.read, { wait: 20 });
    await waiting(1);
    const probeB = waitingGet(b.keys.read, { wait: 20 });
    await waiting(2);
    const queriesA = pageQueries.filter((q) => q.orgId === a.orgId).length;
    await record(b.orgId, 'lead.created');
    expect((await probeB.result).body.events).toHaveLength(1);
    expect(waitA.settled()).toBe(false);
    expect(pageQueries.filter((q) => q.orgId === a.orgId).length).toBe(queriesA);
    const own = await record(a.orgId, 'call.completed');
    expect((await waitA.result).body.events.map((x: { id: string }) => x.id)).toEqual([own.envelope.id]);
  });

  it('never serves an event ahead of an older one still in an open transaction', async () => {
    const f = await createFirm(t.app, { publish: false });
    const w = waitingGet(f.keys.read, { wait: 20 });
    await waiting(1);
    const open = new pg.Client({ connectionString: t.databaseUrl });
    await open.connect();
    try {
      await open.query('BEGIN');
      await open.query('SELECT pg_current_xact_id()'); // an older transaction id than the event committed next
      const held = await insertEvent(open, f.orgId, { type: 'lead.created' });
      const queries = pageQueries.filter((q) => q.orgId === f.orgId).length;
      const later = await record(f.orgId, 'call.completed');
      // Woken by the later event's commit, the waiter finds it held back and re-checks on its short tick.
      await waitFor(() => pageQueries.filter((q) => q.orgId === f.orgId).length >= queries + 3, 'the waiter to re-check twice');
      expect(w.settled()).toBe(false);
      await open.query('COMMIT'); // no notification of its own: the re-check tick finds both
      const r = await w.result;
      expect(r.body.events.map((x: { id: string }) => x.id)).toEqual([held, later.envelope.id]);
    } finally {
      await open.end();
    }
  });

  it('an event committed before the wait but still held back is answered once the hold-back ends', async () => {
    const f = await createFirm(t.app, { publish: false });
    const blocker = new pg.Client({ connectionString: t.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT pg_current_xact_id()'); // holds every later transaction's events back
      const e = await record(f.orgId, 'lead.created'); // committed (and notified) before anyone waits
      const w = waitingGet(f.keys.read, { wait: 20 });
      await waiting(1);
      const queries = pageQueries.filter((q) => q.orgId === f.orgId).length;
      await waitFor(() => pageQueries.filter((q) => q.orgId === f.orgId).length >= queries + 1, 'the waiter to re-check');
      expect(w.settled()).toBe(false);
      await blocker.query('COMMIT'); // ends the hold-back with no event and no notification
      // Another test file's open transaction may hold the event back longer: counted from when it can be listed.
      const listableAt = whenListable(t, [e.envelope.id]);
      const r = await w.result;
      expect(r.body.events.map((x: { id: string }) => x.id)).toEqual([e.envelope.id]);
      expect(w.answeredAt() - (await listableAt)).toBeLessThan(2500);
    } finally {
      await blocker.end();
    }
  });

  it('a client that goes away stops its wait', async () => {
    const f = await createFirm(t.app, { publish: false });
    // A connection of its own, destroyed: an aborted fetch makes undici open a fresh connection that never sends a
    // request, and the server's close then waits for it until HTTP_IDLE_TIMEOUT_MS (60 s) cuts it.
    const req = http.get(`${t.baseUrl}/v1/events?wait=30`, { agent: false, headers: { authorization: `Bearer ${f.keys.read}` } });
    const gone = new Promise<string | undefined>((resolve) => req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code)));
    await waiting(1);
    req.destroy();
    expect(await gone).toBe('ECONNRESET');
    await waitFor(() => waits.waiting === 0, 'the abandoned wait to end');
  });
});

describe('GET /v1/events?wait= at shutdown', () => {
  it('app.close answers waiting requests at once with an empty page', async () => {
    const t = await startTestApp();
    const firm = await createFirm(t.app, { publish: false });
    // A plain fetch: the answer arrives while the app closes, after which its document is no longer served for the conformance check.
    const w = fetch(`${t.baseUrl}/v1/events?wait=30`, { headers: { authorization: `Bearer ${firm.keys.read}` } });
    await waitFor(() => t.app.get(EventWaits).waiting === 1, 'the request to wait');
    const started = Date.now();
    await t.close();
    const r = await w;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ events: [], has_more: false, next_after: null });
  });
});

describe('GET /v1/events?wait= and the HTTP time bounds', () => {
  it('is not cut by HTTP_REQUEST_TIMEOUT_MS, and ends a second before HTTP_IDLE_TIMEOUT_MS would cut the socket', async () => {
    const t = await startTestApp({ env: { HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_IDLE_TIMEOUT_MS: '4000' } });
    try {
      const firm = await createFirm(t.app, { publish: false });
      const started = Date.now();
      const r = await t.get('/v1/events', { key: firm.keys.read, query: { wait: 10 } });
      const took = Date.now() - started;
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ events: [], has_more: false, next_after: null });
      expect(took).toBeGreaterThanOrEqual(2900);
      expect(took).toBeLessThan(10_000); // not the whole wait: capped below the idle bound (a cut socket would not answer 200)
    } finally {
      await t.close();
    }
  });
});
