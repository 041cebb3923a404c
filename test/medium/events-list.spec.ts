import pg from 'pg';
import { AccountService } from '../../src/account';
import { EventsService } from '../../src/events';
import { firmEventsListable, insertEvent } from '../support/events';
import { newMediumService, type MediumService } from '../support/medium';

/** EventsService.list: the firm's log in commit-safe order (txid, seq), against the real database, without HTTP. */
describe('EventsService.list', () => {
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

  const newOrg = async () => (await m.module.get(AccountService).createOrg({ name: `Events ${process.pid} ${++n}` })).id;
  const ids = async (orgId: string, opts: { after?: string; limit?: number } = {}) =>
    (await m.sut.list({ orgId, livemode: true }, { limit: 100, ...opts })).events.map((e) => e.id);
  /** A session of the test's own, to hold a transaction open. */
  const session = async () => {
    const c = new pg.Client({ connectionString: m.databaseUrl });
    await c.connect();
    return c;
  };

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

  it("lists only the firm's own events; after naming another firm's event is refused", async () => {
    const [mine, theirs] = [await newOrg(), await newOrg()];
    const own = await insertEvent(pool, mine);
    const foreign = await insertEvent(pool, theirs);
    await firmEventsListable(m, mine, theirs);
    expect(await ids(mine)).toEqual([own]);
    await expect(m.sut.list({ orgId: mine, livemode: true }, { limit: 10, after: foreign })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'after',
    });
  });
});
