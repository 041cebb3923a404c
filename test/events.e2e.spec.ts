import pg from 'pg';
import { Database } from '../src/database/sql';
import { RetentionRunner } from '../src/common/retention/retention-runner';
import { EventsService } from '../src/events';
import { eventsListable, firmEventsListable, insertEvent, recordEvent, restrictKey } from './support/events';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

const DAY = 86_400_000;

describe('events log (GET /v1/events, GET /v1/events/{id}, retention)', () => {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  let key: string;
  const record = (orgId: string, type: 'call.completed' | 'lead.created' | 'lead.updated', data: Record<string, unknown>) =>
    t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type, data }));

  beforeAll(async () => {
    t = await startTestApp();
    firm = await createFirm(t.app, { publish: false });
    other = await createFirm(t.app, { publish: false });
    key = firm.keys['read-no-transcripts'];
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  it('an empty log answers an empty page', async () => {
    const fresh = await createFirm(t.app, { publish: false });
    const r = await t.get('/v1/events', { key: fresh.keys.read });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ events: [], has_more: false, next_after: null });
  });

  describe('with events', () => {
    const ids: string[] = [];
    beforeAll(async () => {
      const a = await record(firm.orgId, 'call.completed', { call_id: 'call_1', answered: true });
      const b = await record(firm.orgId, 'lead.created', { lead_id: 'lead_1', call_id: 'call_1', status: 'new' });
      const c = await record(firm.orgId, 'lead.updated', { lead_id: 'lead_1', changes: ['status'] });
      await record(other.orgId, 'lead.created', { lead_id: 'lead_x' });
      ids.push(a.envelope.id, b.envelope.id, c.envelope.id);
      await firmEventsListable(t, firm.orgId, other.orgId);
    });

    it("lists the firm's events oldest first with the exact envelope", async () => {
      const r = await t.get('/v1/events', { key });
      expect(r.status).toBe(200);
      expect(r.body.has_more).toBe(false);
      expect(r.body.next_after).toBe(ids[2]);
      expect(r.body.events.map((e: any) => e.id)).toEqual(ids);
      const first = r.body.events[0];
      expect(Object.keys(first)).toEqual(['id', 'type', 'timestamp', 'org', 'test', 'livemode', 'data']);
      expect(first).toEqual({
        id: ids[0],
        type: 'call.completed',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        org: { id: firm.orgId },
        test: false,
        livemode: true,
        data: expect.objectContaining({ call_id: 'call_1', answered: true }),
      });
      expect(first.id).toMatch(/^evt_[0-9a-z]{26}$/);
    });

    it('pages with limit and next_after until has_more is false', async () => {
      const p1 = await t.get('/v1/events', { key, query: { limit: 2 } });
      expect(p1.body.events.map((e: any) => e.id)).toEqual(ids.slice(0, 2));
      expect(p1.body).toMatchObject({ has_more: true, next_after: ids[1] });
      const p2 = await t.get('/v1/events', { key, query: { limit: 2, after: p1.body.next_after } });
      expect(p2.body.events.map((e: any) => e.id)).toEqual([ids[2]]);
      expect(p2.body).toMatchObject({ has_more: false, next_after: ids[2] });
      const p3 = await t.get('/v1/events', { key, query: { after: ids[2] } });
      expect(p3.body).toEqual({ events: [], has_more: false, next_after: null });
    });

    it('filters by type', async () => {
      const r = await t.get('/v1/events', { key, query: { type: 'lead.created' } });
      expect(r.body.events.map((e: any) => e.id)).toEqual([ids[1]]);
      const none = await t.get('/v1/events', { key, query: { type: 'webhook.test' } });
      expect(none.body).toEqual({ events: [], has_more: false, next_after: null });
    });

    it('GET /v1/events/{id} answers the same envelope as the list', async () => {
      const list = await t.get('/v1/events', { key });
      const one = await t.get(`/v1/events/${ids[1]}`, { key });
      expect(one.status).toBe(200);
      expect(one.text).toBe(JSON.stringify(list.body.events[1]));
    });

    it('refuses bad parameters with 400 naming the parameter', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ limit: '0' }, 'limit'],
        [{ limit: '101' }, 'limit'],
        [{ limit: 'ten' }, 'limit'],
        [{ type: 'call.started' }, 'type'],
        [{ after: 'lead_123' }, 'after'],
        [{ cursor: 'x' }, 'cursor'],
      ];
      for (const [query, param] of cases) {
        const r = await t.get('/v1/events', { key, query });
        expect({ query, status: r.status, code: r.body.code, param: r.body.param }).toEqual({
          query,
          status: 400,
          code: 'invalid_request',
          param,
        });
      }
    });

    it('an after that names no event of this firm is a 400 naming after', async () => {
      const otherEvent = (await t.get('/v1/events', { key: other.keys.read })).body.events[0].id;
      for (const after of [otherEvent, 'evt_00000000000000000000000000']) {
        const r = await t.get('/v1/events', { key, query: { after } });
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ code: 'invalid_request', param: 'after' });
      }
    });

    it('an after older than 30 days is a 400; such events are neither listed nor readable', async () => {
      t.clock.advance(30 * DAY + 60_000);
      const r = await t.get('/v1/events', { key, query: { after: ids[0] } });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_request', param: 'after' });
      expect(r.body.detail).toMatch(/older than 30 days/);
      expect((await t.get('/v1/events', { key })).body.events).toEqual([]);
      expect((await t.get(`/v1/events/${ids[0]}`, { key })).status).toBe(404);
    });

    it("GET /v1/events/{id}: 404 for unknown and for another firm's event, 400 for a malformed id", async () => {
      const theirs = (await t.get('/v1/events', { key: other.keys.read })).body.events[0].id;
      expect((await t.get(`/v1/events/${theirs}`, { key: other.keys.read })).status).toBe(200);
      const r = await t.get(`/v1/events/${theirs}`, { key });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
      expect((await t.get('/v1/events/evt_00000000000000000000000000', { key })).status).toBe(404);
      const bad = await t.get('/v1/events/call_123', { key });
      expect(bad.status).toBe(400);
      expect(bad.body.param).toBe('event_id');
    });

    it('a key without webhooks:read gets 403 insufficient_scope on both routes; no key gets 401', async () => {
      await restrictKey(t, firm.keyIds.read, ['org:read', 'calls:read', 'leads:read']);
      for (const path of ['/v1/events', `/v1/events/${ids[0]}`]) {
        const r = await t.get(path, { key: firm.keys.read });
        expect(r.status).toBe(403);
        expect(r.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'webhooks:read' });
        expect((await t.get(path)).status).toBe(401);
      }
    });
  });

  it('events of a rolled-back transaction never appear', async () => {
    const f = await createFirm(t.app, { publish: false });
    await expect(
      t.app.get(Database).transaction(async (m) => {
        await recordEvent(t.app.get(EventsService), m, { orgId: f.orgId, type: 'lead.created', data: { lead_id: 'lead_rb' } });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await t.get('/v1/events', { key: f.keys.read })).body.events).toEqual([]);
  });

  it('holds back events while an older writing transaction is open, and never skips it after it commits', async () => {
    const f = await createFirm(t.app, { publish: false });
    const k = f.keys.read;
    const a = new pg.Client({ connectionString: t.databaseUrl });
    const b = new pg.Client({ connectionString: t.databaseUrl });
    await a.connect();
    await b.connect();
    try {
      // B takes its transaction id first, A inserts first (lower seq), B inserts and commits first.
      await b.query('BEGIN');
      await b.query('SELECT pg_current_xact_id()');
      await a.query('BEGIN');
      await a.query('SELECT pg_current_xact_id()');
      const idA = await insertEvent(a, f.orgId);
      const idB = await insertEvent(b, f.orgId);
      const [seqA] = await a.query('SELECT seq FROM events WHERE id = $1', [idA]).then((r) => r.rows.map((x) => Number(x.seq)));
      await b.query('COMMIT');
      const [seqB] = await t.sql('SELECT seq FROM events WHERE id = $1', [idB]).then((r) => r.map((x) => Number(x.seq)));
      expect(seqA).toBeLessThan(seqB);
      // C starts after A: held back until A finishes, although committed.
      const c = new pg.Client({ connectionString: t.databaseUrl });
      await c.connect();
      const idC = await insertEvent(c, f.orgId);
      await c.end();
      await eventsListable(t, [idB]);
      const p1 = await t.get('/v1/events', { key: k });
      expect(p1.body.events.map((e: any) => e.id)).toEqual([idB]);
      expect(p1.body).toMatchObject({ has_more: false, next_after: idB });
      await a.query('COMMIT');
      await eventsListable(t, [idA, idC]);
      const p2 = await t.get('/v1/events', { key: k, query: { after: p1.body.next_after } });
      expect(p2.body.events.map((e: any) => e.id)).toEqual([idA, idC]);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('orders by log position numerically, also across digit boundaries (e.g. seq 999 -> 1000)', async () => {
    const f = await createFirm(t.app, { publish: false });
    const [{ seq }] = await t.sql(`SELECT last_value::int AS seq FROM events_seq_seq`);
    await t.sql(`SELECT setval('events_seq_seq', $1)`, [Math.max(seq, Math.ceil((seq + 1) / 1000) * 1000 - 5)]);
    const ids = await t.app.get(Database).transaction(async (m) => {
      const out: string[] = [];
      for (let i = 0; i < 10; i++)
        out.push(
          (await recordEvent(t.app.get(EventsService), m, { orgId: f.orgId, type: 'lead.created', data: { lead_id: `lead_${i}` } }))
            .envelope.id,
        );
      return out;
    });
    const seqs = (await t.sql(`SELECT seq::text AS seq FROM events WHERE id = ANY($1) ORDER BY events.seq`, [ids])).map((r) => r.seq);
    expect(seqs[0].length).toBeLessThan(seqs[9].length); // the batch crosses a digit boundary
    await eventsListable(t, ids);
    const p1 = await t.get('/v1/events', { key: f.keys.read, query: { limit: 6 } });
    const p2 = await t.get('/v1/events', { key: f.keys.read, query: { limit: 6, after: p1.body.next_after } });
    expect([...p1.body.events, ...p2.body.events].map((e: any) => e.id)).toEqual(ids);
  });

  it('retention drops the day of events once the whole day is older than 30 days and keeps the rest', async () => {
    const f = await createFirm(t.app, { publish: false });
    const oldDay = `events_p${t.clock.now().toISOString().slice(0, 10).replaceAll('-', '')}`;
    await t.app.get(RetentionRunner).run('events'); // today's partition exists wherever earlier tests left the clock
    for (let i = 0; i < 5; i++) await record(f.orgId, 'lead.created', { lead_id: `lead_old_${i}` });
    t.clock.advance(25 * DAY);
    const young = await record(f.orgId, 'lead.created', { lead_id: 'lead_young' });
    t.clock.advance(6 * DAY);
    const before = await t.sql('SELECT count(*)::int AS n FROM events WHERE org_id = $1', [f.orgId]);
    expect(before[0].n).toBe(6);
    const run = await t.app.get(RetentionRunner).run('events', 2);
    // The whole day went at once (a dropped partition), not row by row.
    expect(run.dropped).toContain(oldDay);
    expect(run.deleted).toBe(0);
    expect(await t.app.get(RetentionRunner).run('events', 2)).toEqual({ created: [], dropped: [], deleted: 0 });
    const left = await t.sql('SELECT id FROM events WHERE org_id = $1', [f.orgId]);
    expect(left.map((r) => r.id)).toEqual([young.envelope.id]);
    await eventsListable(t, [young.envelope.id]);
    const r = await t.get('/v1/events', { key: f.keys.read });
    expect(r.body.events.map((e: any) => e.id)).toEqual([young.envelope.id]);
  });
});
