import pg from 'pg';
import { AccountService } from '../../../src/account';
import { RetentionRunner } from '../../../src/common/retention/retention-runner';
import { Database } from '../../../src/database/sql';
import { EventsService, EventWaits, WaitingEventsList, type EventType } from '../../../src/events';
import { createFirm } from '../../support/factories';
import { waitFor } from '../../support/receiver';
import { eventData, eventsListable, firmEventsListable, insertEvent, recordEvent, whenListable } from '../../support/events';
import { newMediumService, type MediumService } from '../../support/medium';
import { hold } from '../../support/time';

const DAY = 86_400_000;

/** One Nest context for the file (EventsService with the real repositories); each test makes its own firms. */
let m: MediumService<EventsService>;
/** The test's own connections, for events written outside the service. */
let pool: pg.Pool;
let n = 0;

beforeAll(async () => {
  m = await newMediumService(EventsService);
  pool = new pg.Pool({ connectionString: m.databaseUrl, max: 2 });
});
afterAll(async () => {
  await pool.end();
  await m.close();
});
afterEach(() => m.clock.reset());

const newOrg = async () => (await m.module.get(AccountService).createOrg({ name: `Events ${process.pid} ${++n}` })).id;
const live = (orgId: string) => ({ orgId, livemode: true });
const ids = async (orgId: string, opts: { after?: string; limit?: number; type?: EventType } = {}) =>
  (await m.sut.list(live(orgId), { limit: 100, ...opts })).events.map((e) => e.id);
/** A session of the test's own, to hold a transaction open. */
const session = async () => {
  const c = new pg.Client({ connectionString: m.databaseUrl });
  await c.connect();
  return c;
};
/** An event through the real outbox (EventsService.record), in a transaction of its own. */
const record = (orgId: string, type: 'call.completed' | 'lead.created' | 'lead.updated', data: Record<string, unknown>) =>
  m.module.get(Database).transaction((tx) => recordEvent(m.sut, tx, { orgId, type, data }));

/** EventsService.list: the firm's log in commit-safe order (txid, seq), against the real database, without HTTP. */
describe('EventsService.list', () => {
  it('holds back what an older open transaction may still add before it, then lists by transaction, not by insert order', async () => {
    const orgId = await newOrg();
    const [early, late] = [await session(), await session()];
    try {
      // `early` takes its transaction id first but inserts last: its event has the higher seq and the lower txid.
      await early.query('BEGIN');
      await early.query('SELECT pg_current_xact_id()');
      await late.query('BEGIN');
      const second = await insertEvent(late, orgId);
      await late.query('COMMIT');
      const first = await insertEvent(early, orgId);
      // `late` has committed, but `early` is open with a smaller id: listing `second` now would skip `first` for ever.
      expect(await ids(orgId)).toEqual([]);
      await early.query('COMMIT');
      await firmEventsListable(m, orgId);
      expect(await ids(orgId)).toEqual([first, second]);
    } finally {
      await early.end();
      await late.end();
    }
  });

  it('paging with after sees every event once, in the same order', async () => {
    const orgId = await newOrg();
    const written: string[] = [];
    for (let i = 0; i < 5; i++) written.push(await insertEvent(pool, orgId));
    await firmEventsListable(m, orgId);
    const paged: string[] = [];
    for (let after: string | undefined; ;) {
      const page = await m.sut.list({ orgId, livemode: true }, { limit: 2, after });
      paged.push(...page.events.map((e) => e.id));
      if (!page.has_more) break;
      after = page.next_after!;
    }
    expect(paged).toEqual(written);
  });

  it("lists only the firm's own events; after naming another firm's event answers as an unknown one, after_lost", async () => {
    const [mine, theirs] = [await newOrg(), await newOrg()];
    const own = await insertEvent(pool, mine);
    const foreign = await insertEvent(pool, theirs);
    await firmEventsListable(m, mine, theirs);
    expect(await ids(mine)).toEqual([own]);
    // An id of the service's shape, made within the 30 days, that this feed does not hold: as if a failover lost it.
    await expect(m.sut.list({ orgId: mine, livemode: true }, { limit: 10, after: foreign })).rejects.toMatchObject({
      code: 'after_lost',
      extra: { param: 'after', restart_after: null },
    });
  });

  it("lists the firm's events oldest first, each in the envelope the log and webhooks share", async () => {
    const orgId = await newOrg();
    const a = await record(orgId, 'call.completed', { call_id: 'call_1', answered: true });
    const b = await record(orgId, 'lead.created', { lead_id: 'lead_1', call_id: 'call_1', status: 'new' });
    const c = await record(orgId, 'lead.updated', { lead_id: 'lead_1', changes: ['status'] });
    await firmEventsListable(m, orgId);
    const page = await m.sut.list(live(orgId), { limit: 100 });
    expect(page.events.map((e) => e.id)).toEqual([a, b, c].map((e) => e.envelope.id));
    expect(page).toMatchObject({ has_more: false, next_after: c.envelope.id });
    expect(page.events[0]).toEqual({
      id: a.envelope.id,
      type: 'call.completed',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      org: { id: orgId },
      test: false,
      livemode: true,
      data: eventData('call.completed', { call_id: 'call_1', answered: true }),
    });
    expect(page.events[0].id).toMatch(/^evt_[0-9a-z]{32}$/);
    expect(await m.sut.get(live(orgId), b.envelope.id)).toEqual(page.events[1]);
  });

  it('pages with limit and next_after until has_more is false; filters by type', async () => {
    const orgId = await newOrg();
    const events = [
      await record(orgId, 'call.completed', { call_id: 'call_1' }),
      await record(orgId, 'lead.created', { lead_id: 'lead_1' }),
      await record(orgId, 'lead.updated', { lead_id: 'lead_1' }),
    ].map((e) => e.envelope.id);
    await firmEventsListable(m, orgId);
    const p1 = await m.sut.list(live(orgId), { limit: 2 });
    expect(p1.events.map((e) => e.id)).toEqual(events.slice(0, 2));
    expect(p1).toMatchObject({ has_more: true, next_after: events[1] });
    const p2 = await m.sut.list(live(orgId), { limit: 2, after: p1.next_after! });
    expect(p2.events.map((e) => e.id)).toEqual([events[2]]);
    expect(p2).toMatchObject({ has_more: false, next_after: events[2] });
    expect(await m.sut.list(live(orgId), { limit: 20, after: events[2] })).toEqual({ events: [], has_more: false, next_after: null });
    expect(await ids(orgId, { type: 'lead.created' })).toEqual([events[1]]);
    expect(await m.sut.list(live(orgId), { limit: 20, type: 'webhook.test' })).toEqual({ events: [], has_more: false, next_after: null });
  });

  it('an after that names no event of this firm is refused naming after', async () => {
    await expect(m.sut.list(live(await newOrg()), { limit: 10, after: 'evt_00000000000000000000000000' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'after',
    });
  });

  it('an event older than 30 days is neither listed nor readable, and an after naming it is refused', async () => {
    const orgId = await newOrg();
    const old = await record(orgId, 'lead.created', { lead_id: 'lead_old' });
    await eventsListable(m, [old.envelope.id]);
    m.clock.advance(30 * DAY + 60_000);
    await expect(m.sut.list(live(orgId), { limit: 10, after: old.envelope.id })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'after',
      message: expect.stringMatching(/older than 30 days/),
    });
    expect(await ids(orgId)).toEqual([]);
    await expect(m.sut.get(live(orgId), old.envelope.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it("get: another firm's, another mode's and an unknown event are not found; a malformed id is refused naming event_id", async () => {
    const [mine, theirs] = [await newOrg(), await newOrg()];
    const event = (await record(theirs, 'lead.created', { lead_id: 'lead_x' })).envelope.id;
    expect((await m.sut.get(live(theirs), event)).id).toBe(event);
    for (const [feed, id] of [
      [live(mine), event],
      [{ orgId: theirs, livemode: false }, event],
      [live(mine), 'evt_00000000000000000000000000'],
    ] as const) {
      await expect(m.sut.get(feed, id)).rejects.toMatchObject({ code: 'not_found' });
    }
    await expect(m.sut.get(live(mine), 'call_123')).rejects.toMatchObject({ code: 'invalid_request', param: 'event_id' });
  });

  it('events of a rolled-back transaction never appear', async () => {
    const orgId = await newOrg();
    await expect(
      m.module.get(Database).transaction(async (tx) => {
        await recordEvent(m.sut, tx, { orgId, type: 'lead.created', data: { lead_id: 'lead_rb' } });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await firmEventsListable(m, orgId);
    expect(await ids(orgId)).toEqual([]);
    expect(await m.sql('SELECT 1 FROM events WHERE org_id = $1', [orgId])).toEqual([]);
  });

  it('holds back events while an older writing transaction is open, and never skips it after it commits', async () => {
    const orgId = await newOrg();
    const [a, b] = [await session(), await session()];
    try {
      // B takes its transaction id first, A inserts first (lower seq), B inserts and commits first.
      await b.query('BEGIN');
      await b.query('SELECT pg_current_xact_id()');
      await a.query('BEGIN');
      await a.query('SELECT pg_current_xact_id()');
      const idA = await insertEvent(a, orgId);
      const idB = await insertEvent(b, orgId);
      const [seqA] = (await a.query('SELECT seq FROM events WHERE id = $1', [idA])).rows.map((x) => Number(x.seq));
      await b.query('COMMIT');
      const [seqB] = (await m.sql('SELECT seq FROM events WHERE id = $1', [idB])).map((x) => Number(x.seq));
      expect(seqA).toBeLessThan(seqB);
      // C starts after A: held back until A finishes, although committed.
      const idC = await insertEvent(pool, orgId);
      await eventsListable(m, [idB]);
      const p1 = await m.sut.list(live(orgId), { limit: 20 });
      expect(p1.events.map((e) => e.id)).toEqual([idB]);
      expect(p1).toMatchObject({ has_more: false, next_after: idB });
      await a.query('COMMIT');
      await eventsListable(m, [idA, idC]);
      expect(await ids(orgId, { after: p1.next_after! })).toEqual([idA, idC]);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('orders by log position numerically, also across digit boundaries (e.g. seq 999 -> 1000)', async () => {
    const orgId = await newOrg();
    const [{ seq }] = await m.sql(`SELECT last_value::int AS seq FROM events_seq_seq`);
    await m.sql(`SELECT setval('events_seq_seq', $1)`, [Math.max(seq, Math.ceil((seq + 1) / 1000) * 1000 - 5)]);
    const written = await m.module.get(Database).transaction(async (tx) => {
      const out: string[] = [];
      for (let i = 0; i < 10; i++) out.push((await recordEvent(m.sut, tx, { orgId, type: 'lead.created', data: { i } })).envelope.id);
      return out;
    });
    const seqs = (await m.sql(`SELECT seq::text AS seq FROM events WHERE id = ANY($1) ORDER BY events.seq`, [written])).map((r) => r.seq);
    expect(seqs[0].length).toBeLessThan(seqs[9].length); // the batch crosses a digit boundary
    await eventsListable(m, written);
    const p1 = await m.sut.list(live(orgId), { limit: 6 });
    const p2 = await m.sut.list(live(orgId), { limit: 6, after: p1.next_after! });
    expect([...p1.events, ...p2.events].map((e) => e.id)).toEqual(written);
  });
});

describe('EventsService retention', () => {
  it('drops the day of events once the whole day is older than 30 days and keeps the rest', async () => {
    const orgId = await newOrg();
    const retention = m.module.get(RetentionRunner);
    const oldDay = `events_p${m.clock.now().toISOString().slice(0, 10).replaceAll('-', '')}`;
    await retention.run('events'); // today's partition exists wherever earlier tests left the clock
    for (let i = 0; i < 5; i++) await record(orgId, 'lead.created', { lead_id: `lead_old_${i}` });
    m.clock.advance(25 * DAY);
    const young = await record(orgId, 'lead.created', { lead_id: 'lead_young' });
    m.clock.advance(6 * DAY);
    expect((await m.sql('SELECT count(*)::int AS n FROM events WHERE org_id = $1', [orgId]))[0].n).toBe(6);
    const run = await retention.run('events', 2);
    // The whole day went at once (a dropped partition), not row by row.
    expect(run.dropped).toContain(oldDay);
    expect(run.deleted).toBe(0);
    expect(await retention.run('events', 2)).toEqual({ created: [], dropped: [], deleted: 0 });
    expect((await m.sql('SELECT id FROM events WHERE org_id = $1', [orgId])).map((r) => r.id)).toEqual([young.envelope.id]);
    await eventsListable(m, [young.envelope.id]);
    expect(await ids(orgId)).toEqual([young.envelope.id]);
  });
});

/**
 * Pages through the events log by next_after while other connections write events: autocommitted ones,
 * transactions held open and committed late (some taking their transaction id early so id order and seq order
 * disagree), and rolled-back ones. Every committed event is seen exactly once; no rolled-back event is ever seen.
 */
describe('EventsService.list: catch-up while events are being written', () => {
  it('following next_after returns every committed event exactly once', async () => {
    const orgId = await newOrg();
    const committed = new Set<string>();
    const rolledBack = new Set<string>();
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;

    const writer = async (count: number) => {
      const c = await session();
      try {
        for (let i = 0; i < count; i++) {
          const mode = rand();
          if (mode < 0.4) {
            committed.add(await insertEvent(c, orgId, { type: 'call.completed' }));
            continue;
          }
          await c.query('BEGIN');
          if (rand() < 0.5) await c.query('SELECT pg_current_xact_id()');
          await hold(Math.floor(rand() * 25));
          const batch: string[] = [];
          for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) batch.push(await insertEvent(c, orgId, { type: 'lead.updated' }));
          await hold(Math.floor(rand() * 60)); // held open while others commit after it
          if (mode < 0.9) {
            await c.query('COMMIT');
            batch.forEach((id) => committed.add(id));
          } else {
            await c.query('ROLLBACK');
            batch.forEach((id) => rolledBack.add(id));
          }
        }
      } finally {
        await c.end();
      }
    };

    const seen: string[] = [];
    // Set once every committed event can be listed: an open transaction anywhere in the cluster (another
    // test file's too) may hold events back for a while after the writers are done, never lose them.
    let listable = false;
    let after: string | undefined;
    let pages = 0;
    const reader = async () => {
      let quietAfterDone = 0;
      while (quietAfterDone < 2) {
        const page = await m.sut.list(live(orgId), { limit: 7, after });
        pages++;
        for (const e of page.events) seen.push(e.id);
        // next_after names the page's last event, and is null exactly when the page is empty.
        expect(page.next_after).toBe(page.events.length ? page.events[page.events.length - 1].id : null);
        after = page.next_after ?? after;
        if (!page.has_more) {
          // Caught up: a client would now wait and ask again with the same after.
          if (listable && page.events.length === 0) quietAfterDone++;
          await hold(5);
        }
      }
    };

    const readerDone = reader();
    await Promise.all([writer(60), writer(60), writer(60), writer(60)]);
    await eventsListable(m, [...committed]);
    listable = true;
    await readerDone;

    expect(committed.size).toBeGreaterThan(200);
    expect(rolledBack.size).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length); // nothing twice
    expect(seen.filter((id) => rolledBack.has(id))).toEqual([]);
    expect([...committed].filter((id) => !seen.includes(id))).toEqual([]); // nothing skipped
    expect(seen.length).toBe(committed.size);
    expect(pages).toBeGreaterThan(30);
  });
});

/**
 * A waiting request whose event's notification was lost with the LISTEN connection, and which the log still holds
 * back when the reconnect's re-check runs: it re-checks on the short tick, so the event reaches it once the older
 * transaction ends, not at its deadline (seen once under load: answered 20 s late, at the end of `wait=20`).
 */
describe('WaitingEventsList after the LISTEN connection comes back', () => {
  it('keeps re-checking an event held back at the re-check, and answers it soon after it can be listed', async () => {
    const firm = await createFirm(m.module, { publish: false });
    const principal = await m.principal(firm.keys.read);
    const waits = m.module.get(EventWaits);
    const answered = m.module.get(WaitingEventsList).list(principal, { limit: 20 }, 20);
    await waitFor(() => waits.listening && waits.waiting === 1, 'the request to wait with its LISTEN in place');
    const older = await session();
    try {
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      // Written with no notification (as one lost with the connection), and held back behind the older transaction.
      const id = await insertEvent(pool, firm.orgId);
      await m.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'events-listener'`);
      await waitFor(() => !waits.listening, 'the LISTEN connection to be lost');
      await waitFor(() => waits.listening, 'the LISTEN connection to be back (every waiter re-checks)', 10_000);
      // No signal says the re-check has run; a pause only orders it before the commit (on a slower machine the commit
      // may come first, and the test then passes either way: it cannot fail wrongly).
      await hold(300);
      await older.query('COMMIT');
      // Another test file's open transaction may hold the event back longer: counted from when it can be listed.
      const listableAt = whenListable(m, [id]);
      const page = await answered;
      expect(page.events.map((e) => e.id)).toEqual([id]);
      expect(Date.now() - (await listableAt)).toBeLessThan(3_000);
    } finally {
      await older.end();
    }
  });
});
