import pg from 'pg';
import { MIGRATIONS } from '../../migrations';
import { DeliveryEventTime1764150000000 } from '../../migrations/1764150000000-delivery-event-time';
import { AccountService } from '../../src/account';
import { dayPartitionName, pgTransactions, TimePartitions, utcDay } from '../../src/common/retention/time-partitions';
import { PoolSql } from '../../src/database/pool-sql';
import { Database, type Tx } from '../../src/database/sql';
import { DeliveryClaimsRepository } from '../../src/webhooks/delivery-claims.repository';
import { WebhookDeliveriesRepository } from '../../src/webhooks/webhook-deliveries.repository';
import { newMediumService, type MediumService } from '../support/medium';
import { databaseWith, migrationsThrough } from '../support/migrated-database';

const DAY = 86_400_000;
const DAYS_KEPT = 30;

async function endpointOf(sql: (text: string, params?: unknown[]) => Promise<{ id: string }[]>, orgId: string): Promise<string> {
  const [{ id }] = await sql(
    `INSERT INTO webhook_endpoints (id, org_id, url, event_types, status, secret_enc, secret_last4, health_since, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, 'https://receiver.example/hook', '{lead.created}', 'enabled', 's', 'abcd', now(), now(), now()) RETURNING id`,
    [orgId],
  );
  return id;
}

describe('migration 1764150000000: deliveries keep their event time', () => {
  it('gives pending deliveries their event occurred_at; finished ones, and ones whose event is gone, keep null', async () => {
    const url = await databaseWith(MIGRATIONS.slice(0, MIGRATIONS.indexOf(DeliveryEventTime1764150000000)));
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const sql = async (text: string, params?: unknown[]) => (await c.query(text, params)).rows;
      const [{ id: org }] = await sql(`INSERT INTO orgs (slug) VALUES ('firm') RETURNING id`);
      const endpoint = await endpointOf(sql, org);
      const at = new Date(Date.now() - 3_600_000);
      await sql(`INSERT INTO events (id, org_id, type, occurred_at, data) VALUES ('evt_kept', $1, 'lead.created', $2, '{}')`, [org, at]);
      const delivery = async (event: string, status: string) =>
        (
          await sql(
            `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, created_at)
             VALUES (gen_random_uuid(), $1, $2, $3, 'lead.created', 'event', $4, now(), now()) RETURNING id`,
            [org, endpoint, event, status],
          )
        )[0].id as string;
      const pending = await delivery('evt_kept', 'pending');
      const orphan = await delivery('evt_gone', 'pending');
      const finished = await delivery('evt_kept', 'succeeded');
      await databaseWith(migrationsThrough(MIGRATIONS, DeliveryEventTime1764150000000), url);
      const times = new Map(
        (await sql(`SELECT id, event_occurred_at FROM webhook_deliveries`)).map((r) => [r.id, r.event_occurred_at as Date | null]),
      );
      expect(times.get(pending)).toEqual(at);
      expect(times.get(orphan)).toBeNull();
      expect(times.get(finished)).toBeNull();
    } finally {
      await c.end();
    }
  });
});

/** Every table or partition a plan reads or writes. */
function relationsOf(plan: Record<string, unknown>): string[] {
  const own = typeof plan['Relation Name'] === 'string' ? [plan['Relation Name']] : [];
  const children = (plan['Plans'] as Record<string, unknown>[] | undefined) ?? [];
  return [...own, ...children.flatMap(relationsOf)];
}

/**
 * The dispatcher's statements against a month of day partitions: each is planned against the partitions of the
 * rows it holds, not every day kept (a statement that finds deliveries or events by id alone is planned over all of
 * them and, as the days fill, scans them: docs/benchmarks.md, "Dispatch").
 */
describe('DeliveryClaimsRepository on day-partitioned tables', () => {
  let m: MediumService<AccountService>;
  let client: pg.Client;
  const seen: { text: string; params: unknown[] }[] = [];
  let repo: DeliveryClaimsRepository;
  const now = new Date();
  const today = utcDay(now);
  const twoDaysAgo = new Date(today.getTime() - 2 * DAY);
  const twentyDaysAgo = new Date(today.getTime() - 20 * DAY + 3_600_000);

  /** Database.transaction whose Tx records each statement it runs. */
  const recording = (db: Database) =>
    ({
      transaction: <T>(work: (tx: Tx) => Promise<T>) =>
        db.transaction((tx) =>
          work({
            query: (text: string, params?: unknown[]) => (seen.push({ text, params: params ?? [] }), tx.query(text, params)),
            execute: (text: string, params?: unknown[]) => tx.execute(text, params),
            prepared: (name: string, text: string, params: unknown[]) => (seen.push({ text, params }), tx.prepared(name, text, params)),
          } as unknown as Tx),
        ),
    }) as unknown as Database;

  /** The relations PostgreSQL would touch for a recorded statement, from its plan (not run). */
  async function planned(text: string, params: unknown[]): Promise<string[]> {
    await client.query('BEGIN');
    try {
      const [{ 'QUERY PLAN': plan }] = (await client.query(`EXPLAIN (FORMAT JSON) ${text}`, params)).rows;
      return [...new Set(relationsOf(plan[0].Plan))].sort();
    } finally {
      await client.query('ROLLBACK');
    }
  }

  const partitionsOf = (rels: string[], table: string) => rels.filter((r) => r.startsWith(`${table}_`));

  let orgId: string;
  let fresh: string;
  let legacy: string;

  beforeAll(async () => {
    m = await newMediumService(AccountService);
    client = new pg.Client({ connectionString: m.databaseUrl });
    await client.connect();
    const tp = new TimePartitions(pgTransactions(client));
    for (const table of ['events', 'webhook_deliveries'])
      for (let k = DAYS_KEPT; k >= 0; k--) await tp.ensureDay(table, new Date(today.getTime() - k * DAY));
    orgId = (await m.sut.createOrg({ name: `Claims ${process.pid}` })).id;
    const endpoint = await endpointOf(m.sql, orgId);
    // An old day with finished deliveries: a statement planned by id alone would read its partition too.
    await m.sql(`INSERT INTO events (id, org_id, type, occurred_at, data) VALUES ('evt_old', $1, 'lead.created', $2, '{}')`, [
      orgId,
      twentyDaysAgo,
    ]);
    await m.sql(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, created_at, completed_at)
       SELECT gen_random_uuid(), $1, $2, 'evt_old', 'lead.created', 'event', 'succeeded', $3, $3 FROM generate_series(1, 50)`,
      [orgId, endpoint, twentyDaysAgo],
    );
    // A pending delivery made before deliveries kept their event's time (null), two days ago, stamped to the
    // microsecond as SQL's now() stamps (a JS Date keeps milliseconds: its day key must not go through one).
    await m.sql(`INSERT INTO events (id, org_id, type, occurred_at, data) VALUES ('evt_legacy', $1, 'lead.created', $2, '{"n":1}')`, [
      orgId,
      twoDaysAgo,
    ]);
    [{ id: legacy }] = await m.sql(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, created_at)
       VALUES (gen_random_uuid(), $1, $2, 'evt_legacy', 'lead.created', 'event', 'pending', $3,
               $3::timestamptz + interval '123 microseconds') RETURNING id`,
      [orgId, endpoint, twoDaysAgo],
    );
    // Today's event, fanned out by the service's own statement (which keeps the event's time).
    await m.sql(`INSERT INTO events (id, org_id, type, occurred_at, data) VALUES ('evt_today', $1, 'lead.created', $2, '{"n":2}')`, [
      orgId,
      now,
    ]);
    await m.module
      .get(Database)
      .transaction((tx) =>
        m.module
          .get(WebhookDeliveriesRepository)
          .fanOut(tx, { orgId, eventId: 'evt_today', eventType: 'lead.created', livemode: true, at: now }),
      );
    [{ id: fresh }] = await m.sql(`SELECT id FROM webhook_deliveries WHERE event_id = 'evt_today'`);
    repo = new DeliveryClaimsRepository(recording(m.module.get(Database)), m.module.get(PoolSql));
  });
  afterAll(async () => {
    await client.end();
    await m.close();
  });

  it('claims both due deliveries with their events: by partition key, and by id for the one made before it was kept', async () => {
    const claimed = await repo.claim(new Date(now.getTime() + 1000), 10, 60);
    expect(Object.fromEntries(claimed.map((c) => [c.id, c.eventData]))).toEqual({ [fresh]: { n: 2 }, [legacy]: { n: 1 } });
    expect(claimed.find((c) => c.id === fresh)!.eventOccurredAt).toEqual(now);
  });

  it('leases and reads events in the days of the claimed rows only', async () => {
    const lease = seen.find((s) => s.text.includes('WITH claimed AS'))!;
    const rels = await planned(lease.text, lease.params);
    expect(partitionsOf(rels, 'webhook_deliveries')).toEqual(
      [dayPartitionName('webhook_deliveries', twoDaysAgo), dayPartitionName('webhook_deliveries', today)].sort(),
    );
    expect(partitionsOf(rels, 'events')).toEqual([dayPartitionName('events', today)]);
  });

  it('records results in the days of the claimed rows only, where the claim still holds', async () => {
    const claimed = await repo.claim(new Date(now.getTime() + 1000), 10, 60);
    expect(claimed).toHaveLength(0); // both leased by the test before
    const held = await m.sql(
      `SELECT id, created_at::text AS key, claim_token FROM webhook_deliveries WHERE status = 'pending' ORDER BY id`,
    );
    seen.length = 0;
    const written = await recording(m.module.get(Database)).transaction((tx) =>
      repo.applyTransitions(
        tx,
        held.map((h) => ({
          id: h.id,
          createdKey: h.key,
          claimToken: h.claim_token,
          status: 'succeeded' as const,
          attempt: null,
          nextAttemptAt: null,
          completedAt: now,
        })),
      ),
    );
    expect([...written].sort()).toEqual([fresh, legacy].sort());
    const rels = await planned(seen[0].text, seen[0].params);
    expect(partitionsOf(rels, 'webhook_deliveries')).toEqual(
      [dayPartitionName('webhook_deliveries', twoDaysAgo), dayPartitionName('webhook_deliveries', today)].sort(),
    );
  });
});
