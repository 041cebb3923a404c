import pg from 'pg';
import { dayPartitionName, pgTransactions, TimePartitions, utcDay } from '../../src/common/retention/time-partitions';
import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { DeliveryDispatcher, WebhookEndpointsService } from '../../src/webhooks';
import { recordEvent } from '../support/events';
import { createFirm } from '../support/factories';
import { Receiver, waitFor } from '../support/receiver';
import { StatementCounter } from '../support/statement-counter';
import { startTestApp, type TestApp } from '../support/test-app';

const DAY = 86_400_000;
const DAYS_KEPT = 30;

/** Every table or partition a plan reads or writes. */
function relationsOf(plan: Record<string, unknown>): string[] {
  const own = typeof plan['Relation Name'] === 'string' ? [plan['Relation Name']] : [];
  const children = (plan['Plans'] as Record<string, unknown>[] | undefined) ?? [];
  return [...own, ...children.flatMap(relationsOf)];
}

/**
 * The dispatcher against a month of day partitions, through the real worker: the claim leases rows of the queue
 * (webhook_pending_deliveries) and reads their events, and the result batch writes the log; each is planned against
 * the days of the rows it holds, not every day kept (a
 * statement finding deliveries or events by id alone is planned over all of them and, as the days fill, scans
 * them: docs/benchmarks.md, "Dispatch"). The statements are caught on the pool's own pg client and planned again
 * with EXPLAIN (not run).
 */
describe('webhook dispatch on day-partitioned tables', () => {
  let t: TestApp;
  let rx: Receiver;
  let client: pg.Client;
  const statements = new StatementCounter();
  const today = utcDay(new Date());
  const twoDaysAgo = new Date(today.getTime() - 2 * DAY);
  const twentyDaysAgo = new Date(today.getTime() - 20 * DAY + 3_600_000);

  beforeAll(async () => {
    rx = await Receiver.start();
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    const tp = new TimePartitions(pgTransactions(client));
    for (const table of ['events', 'webhook_deliveries'])
      for (let k = DAYS_KEPT; k >= 1; k--) await tp.ensureDay(table, new Date(today.getTime() - k * DAY));
    statements.attach(t.app);
  });
  afterAll(async () => {
    statements.detach();
    await client.end();
    await t.close();
    await rx.close();
  });

  async function planned(text: string, values: unknown[]): Promise<string[]> {
    const [{ 'QUERY PLAN': plan }] = (await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows;
    return [...new Set(relationsOf(plan[0].Plan))].sort();
  }
  const partitionsOf = (rels: string[], table: string) => rels.filter((r) => r.startsWith(`${table}_`));

  it('sends a delivery made before deliveries kept their event time and one made now, each planned against its own days', async () => {
    const f = await createFirm(t.app, { publish: false });
    const { endpoint } = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: rx.url('/by-day'), eventTypes: 'lead.created' });
    // An old day full of finished deliveries: a statement planned by id alone would read its partition too.
    await t.sql(`INSERT INTO events (id, org_id, type, occurred_at, data) VALUES ($1, $2, 'lead.created', $3, '{}')`, [
      `evt_old_${f.orgId}`,
      f.orgId,
      twentyDaysAgo,
    ]);
    await t.sql(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, created_at, completed_at)
       SELECT gen_random_uuid(), $1, $2, $3, 'lead.created', 'event', 'succeeded', $4, $4 FROM generate_series(1, 50)`,
      [f.orgId, endpoint.id, `evt_old_${f.orgId}`, twentyDaysAgo],
    );
    // Pending since two days ago, made before deliveries kept their event's time (null), and stamped to the
    // microsecond as SQL's now() stamps: its day must go back to PostgreSQL exactly, not through a JS Date.
    const legacyEvent = `evt_legacy_${f.orgId}`;
    await t.sql(`INSERT INTO events (id, org_id, type, occurred_at, data) VALUES ($1, $2, 'lead.created', $3, '{"n":1}')`, [
      legacyEvent,
      f.orgId,
      twoDaysAgo,
    ]);
    await t.sql(
      `WITH d AS (
         INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, created_at)
         VALUES (gen_random_uuid(), $1, $2, $3, 'lead.created', 'event', 'pending', $4, $4::timestamptz + interval '123 microseconds')
         RETURNING *)
       INSERT INTO webhook_pending_deliveries (id, created_at, org_id, endpoint_id, event_id, event_type, trigger, next_attempt_at)
       SELECT id, created_at, org_id, endpoint_id, event_id, event_type, trigger, next_attempt_at FROM d`,
      [f.orgId, endpoint.id, legacyEvent, twoDaysAgo],
    );
    await t.sql(`SELECT pg_notify('webhook_deliveries', '')`);
    const fresh = await t.app
      .get(Database)
      .transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId: f.orgId, type: 'lead.created', data: { n: 2 } }));

    const states = async () =>
      (await t.sql(`SELECT status FROM webhook_deliveries WHERE endpoint_id = $1 AND event_id = ANY($2)`, [
        endpoint.id,
        [legacyEvent, fresh.envelope.id],
      ])) as { status: string }[];
    await waitFor(async () => (await states()).filter((s) => s.status === 'succeeded').length === 2, 'both recorded as sent');
    await t.app.get(DeliveryDispatcher).idle();
    const bodies = rx.at('/by-day').map((r) => JSON.parse(r.body) as { id: string; data: unknown });
    expect(Object.fromEntries(bodies.map((b) => [b.id, b.data]))).toEqual({
      [legacyEvent]: { n: 1 },
      [fresh.envelope.id]: expect.objectContaining({ n: 2 }),
    });

    // The claim leases queue rows and reads their events in their days; the results are written in their days.
    const claims = statements.allWithValues.filter((c) => /^\s*WITH claimed AS/.test(c.text));
    const results = statements.allWithValues.filter((c) => /^\s*WITH x AS .*UPDATE webhook_deliveries d\s+SET status/s.test(c.text));
    expect(claims.length).toBeGreaterThan(0);
    expect(results.length).toBeGreaterThan(0);
    const days = [dayPartitionName('webhook_deliveries', twoDaysAgo), dayPartitionName('webhook_deliveries', today)];
    for (const c of claims) {
      const rels = await planned(c.text, c.values);
      expect(rels).toContain('webhook_pending_deliveries');
      expect(partitionsOf(rels, 'webhook_deliveries')).toEqual([]);
      expect(days).toEqual(expect.arrayContaining(partitionsOf(rels, 'events').map((r) => r.replace(/^events_/, 'webhook_deliveries_'))));
    }
    for (const c of results) {
      const deliveries = partitionsOf(await planned(c.text, c.values), 'webhook_deliveries');
      expect(deliveries.length).toBeGreaterThan(0);
      expect(days).toEqual(expect.arrayContaining(deliveries));
    }
  });
});
