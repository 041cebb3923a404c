import pg from 'pg';
import { AccountService } from '../../../src/account';
import { readEventId } from '../../../src/common/ids';
import { DatabasePool } from '../../../src/database/database-pool';
import { Database } from '../../../src/database/sql';
import { EventsService, StandbyHorizon, WaitingEventsList } from '../../../src/events';
import { waitFor } from '../../support/receiver';
import { recordEvent } from '../../support/events';
import { createFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';

/**
 * The events log across histories of the database (a promotion, a lost tail, an old primary), in one real database:
 * a history is a number `log_histories` gives the server it runs on, so a test makes "the server before a promotion"
 * by renumbering rows, and "a lost tail" by deleting events a reader was given. The real failover (a primary, a
 * streaming standby, a proxy, processes) is test/failover.e2e.spec.ts.
 */
let m: MediumService<EventsService>;
let pool: pg.Pool;
let n = 0;
/** The application_name of this file's own connections (not the service's). */
const ASSERTIONS = 'event-histories-assertions';

beforeAll(async () => {
  // A database of its own: these tests renumber its histories.
  m = await newMediumService(EventsService);
  pool = new pg.Pool({ connectionString: m.databaseUrl, max: 2, application_name: ASSERTIONS });
});
afterAll(async () => {
  await pool.end();
  await m.close();
});

const newOrg = async () => (await m.module.get(AccountService).createOrg({ name: `Histories ${process.pid} ${++n}` })).id;
const live = (orgId: string) => ({ orgId, livemode: true });
const list = (orgId: string, after?: string) => m.sut.list(live(orgId), { limit: 100, after });
const ids = async (orgId: string, after?: string) => (await list(orgId, after)).events.map((e) => e.id);
const record = async (orgId: string) =>
  (await m.module.get(Database).transaction((tx) => recordEvent(m.sut, tx, { orgId, type: 'lead.created', data: {} }))).envelope.id;
const sql = async (text: string, params: unknown[] = []) => (await pool.query(text, params)).rows;
/** Every committed event listable (no transaction of the cluster holds them back). */
const listable = (orgId: string, count: number) =>
  waitFor(async () => (await list(orgId)).events.length === count, `${count} events of ${orgId} to be listable`, 15_000);

/** An id of the service's shape, made now, carrying this position (the database's own encoding). */
async function idAt(history: number, txid: string): Promise<string> {
  const [{ id }] = await sql(`SELECT $1 || log_position_code($2, $3::xid8) || 'q4x7zk' AS id`, [
    `evt_${(await record(await newOrg())).slice(4, 14)}`,
    history,
    txid,
  ]);
  return id as string;
}

/** An event written in another history, as a promotion leaves it: its position set by hand. */
async function oldEvent(orgId: string, history: number, txid: string): Promise<string> {
  const id = await idAt(history, txid);
  await sql(
    `INSERT INTO events (id, org_id, type, test, occurred_at, data, history, txid) VALUES ($1, $2, 'lead.created', false, now(), '{}', $3, $4::xid8)`,
    [id, orgId, history, txid],
  );
  return id;
}

/**
 * This server becomes history `now` (as after a promotion), the history before it `before`, another server's. The
 * service's pooled connections were made to "the server before": a real promotion leaves them on the old server, so
 * they are ended here (else one drawn later, once a new connection has read `now`, is refused as stale: 503).
 */
async function promoted(before: number, now: number): Promise<void> {
  await sql(`UPDATE log_histories SET history = $1 WHERE history = (SELECT max(history) FROM log_histories)`, [now]);
  await sql(`INSERT INTO log_histories (history, system_identifier, timeline) VALUES ($1, 'a server before the promotion', 1)`, [before]);
  await sql(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND backend_type = 'client backend' AND application_name NOT IN ($1, 'events-listener')`,
    [ASSERTIONS],
  );
  const servicePool = m.module.get(DatabasePool).pool();
  await waitFor(() => servicePool.totalCount === 0, "the service's pool to drop the ended connections", 10_000);
}

describe('the events log across database histories', () => {
  it("an event's id carries its position: the history and the writing transaction", async () => {
    const orgId = await newOrg();
    const id = await record(orgId);
    const [row] = await sql(`SELECT history, txid::text AS txid FROM events WHERE id = $1`, [id]);
    expect(readEventId(id)?.position).toEqual({ history: row.history, txid: row.txid });
  });

  it('an after a promotion lost answers after_lost naming the newest kept event before it; resuming there misses nothing', async () => {
    const orgId = await newOrg();
    const [e1, e2, e3, e4] = [await record(orgId), await record(orgId), await record(orgId), await record(orgId)];
    await listable(orgId, 4);
    // A reader was given e1..e3; the promotion kept e1, e2 and e4 (committed before the divergence), lost e3.
    await sql(`DELETE FROM events WHERE id = $1`, [e3]);
    const refused = list(orgId, e3);
    await expect(refused).rejects.toMatchObject({ code: 'after_lost', extra: { param: 'after', restart_after: e2 } });
    expect(await ids(orgId, e2)).toEqual([e4]);
    expect(await ids(orgId, e1)).toEqual([e2, e4]);
  });

  it('a lost first event answers after_lost with restart_after null: from the oldest kept', async () => {
    const orgId = await newOrg();
    const [e1, e2] = [await record(orgId), await record(orgId)];
    await listable(orgId, 2);
    await sql(`DELETE FROM events WHERE id = $1`, [e1]);
    await expect(list(orgId, e1)).rejects.toMatchObject({ code: 'after_lost', extra: { restart_after: null } });
    expect(await ids(orgId)).toEqual([e2]);
  });

  it('refuses with invalid_request an id the service never made, or one made over 30 days ago', async () => {
    const orgId = await newOrg();
    await expect(list(orgId, 'evt_abc')).rejects.toMatchObject({ code: 'invalid_request', extra: { param: 'after' } });
    const old = `evt_${'0'.repeat(32)}`;
    await expect(list(orgId, old)).rejects.toMatchObject({
      code: 'invalid_request',
      detail: expect.stringContaining('older than 30 days'),
    });
  });
});

describe('after a promotion (a later history of the database)', () => {
  let orgId: string;
  let keptOld: string[];
  beforeAll(async () => {
    orgId = await newOrg();
    // Before it: history 1, whose transaction ids ran far past what this server has issued (a lost tail used them).
    const [{ next }] = await sql(`SELECT (pg_current_xact_id()::text::bigint + 100000)::text AS next`);
    keptOld = [await oldEvent(orgId, 1, next), await oldEvent(orgId, 1, String(BigInt(next) + 1n))];
    await promoted(1, 2);
  });

  it('what the promoted database writes comes after everything it kept, though its transaction ids are lower', async () => {
    const fresh = [await record(orgId), await record(orgId)];
    await listable(orgId, 4);
    expect(readEventId(fresh[0])?.position?.history).toBe(2);
    // By (txid, seq) alone these would sort first, and a reader past keptOld[1] would skip them for ever.
    expect(await ids(orgId)).toEqual([...keptOld, ...fresh]);
    expect(await ids(orgId, keptOld[1])).toEqual(fresh);
  });

  it("a lost event of the earlier history resumes after the newest kept one of it, never after a later history's", async () => {
    const [{ next }] = await sql(`SELECT (pg_current_xact_id()::text::bigint + 200000)::text AS next`);
    const lost = await idAt(1, next);
    await expect(list(orgId, lost)).rejects.toMatchObject({ code: 'after_lost', extra: { restart_after: keptOld[1] } });
  });

  it('an after from a later history than the database is on (an old primary) answers 503, never a page', async () => {
    const [{ txid }] = await sql(`SELECT pg_current_xact_id()::text AS txid`);
    await expect(list(orgId, await idAt(3, txid))).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('a waiting request resolves after on every wake: when its after is lost meanwhile it answers after_lost', async () => {
    const firm = await createFirm(m.module);
    const waitingOrg = firm.orgId;
    const [e1, e2] = [await record(waitingOrg), await record(waitingOrg)];
    await listable(waitingOrg, 2);
    const principal = await m.principal(firm.keys.read);
    const waiting = m.module.get(WaitingEventsList).list(principal, { limit: 10, after: e2 }, 20);
    const outcome = waiting.then(
      (page) => ({ page }),
      (err: { code: string; extra: unknown }) => ({ code: err.code, extra: err.extra }),
    );
    // The promotion lost e2; the next event is written in the new history, and wakes the waiting request.
    await sql(`DELETE FROM events WHERE id = $1`, [e2]);
    await record(waitingOrg);
    expect(await outcome).toEqual({ code: 'after_lost', extra: { param: 'after', restart_after: e1 } });
  });
});

describe('EVENTS_WAIT_FOR_STANDBY=true with no standby streaming', () => {
  let w: MediumService<EventsService>;
  beforeAll(async () => {
    w = await newMediumService(EventsService, { env: { EVENTS_WAIT_FOR_STANDBY: 'true' } });
  });
  afterAll(() => w.close());

  it('lists no event (none is held by a standby), and says why in events_publication_blocked', async () => {
    const orgId = (await w.module.get(AccountService).createOrg({ name: `Held ${process.pid}` })).id;
    await w.module.get(Database).transaction((tx) => recordEvent(w.sut, tx, { orgId, type: 'lead.created', data: {} }));
    const horizon = w.module.get(StandbyHorizon);
    expect(horizon.before()).toEqual({ history: 0, txid: '0' });
    const blocked = async () => {
      for (const metric of horizon.metrics) {
        const read = await metric.get();
        if (read.name === 'events_publication_blocked') return read.values[0]?.value;
      }
    };
    await waitFor(async () => (await blocked()) === 1, 'the horizon to notice no standby streams', 5_000);
    // Committed and listable by every other rule, it waits for a standby that never comes.
    const listable = `SELECT count(*)::int AS n FROM events WHERE org_id = $1 AND txid < pg_snapshot_xmin(pg_current_snapshot())`;
    await waitFor(async () => (await w.sql(listable, [orgId]))[0].n === 1, 'the event to be below every open transaction', 15_000);
    expect((await w.sut.list(live(orgId), { limit: 10 })).events).toEqual([]);
  });
});
