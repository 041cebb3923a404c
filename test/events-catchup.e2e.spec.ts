import pg from 'pg';
import { eventsListable, insertEvent } from './support/events';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';
import { hold } from './support/time';

/**
 * Pages through the events log by next_after while other connections write
 * events: autocommitted ones, transactions held open and committed late
 * (some taking their transaction id early so id order and seq order
 * disagree), and rolled-back ones. Every committed event is seen exactly
 * once; no rolled-back event is ever seen.
 */
describe('events log catch-up while events are being written', () => {
  let t: TestApp;
  let firm: TestFirm;
  beforeAll(async () => {
    t = await startTestApp();
    firm = await createFirm(t.app, { publish: false });
  });
  afterAll(() => t.close());

  it('following next_after returns every committed event exactly once', async () => {
    const committed = new Set<string>();
    const rolledBack = new Set<string>();
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;

    const writer = async (n: number) => {
      const c = new pg.Client({ connectionString: t.databaseUrl });
      await c.connect();
      try {
        for (let i = 0; i < n; i++) {
          const mode = rand();
          if (mode < 0.4) {
            committed.add(await insertEvent(c, firm.orgId, { type: 'call.completed' }));
            continue;
          }
          await c.query('BEGIN');
          if (rand() < 0.5) await c.query('SELECT pg_current_xact_id()');
          await hold(Math.floor(rand() * 25));
          const batch: string[] = [];
          for (let k = 1 + Math.floor(rand() * 3); k > 0; k--) batch.push(await insertEvent(c, firm.orgId, { type: 'lead.updated' }));
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
        const r = await t.get('/v1/events', { key: firm.keys.read, query: { limit: 7, after } });
        expect(r.status).toBe(200);
        pages++;
        for (const e of r.body.events) seen.push(e.id);
        // next_after names the page's last event, and is null exactly when the page is empty.
        expect(r.body.next_after).toBe(r.body.events.length ? r.body.events[r.body.events.length - 1].id : null);
        after = r.body.next_after ?? after;
        if (!r.body.has_more) {
          // Caught up: a client would now wait and ask again with the same after.
          if (listable && r.body.events.length === 0) quietAfterDone++;
          await hold(5);
        }
      }
    };

    const readerDone = reader();
    await Promise.all([writer(60), writer(60), writer(60), writer(60)]);
    await eventsListable(t, [...committed]);
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
