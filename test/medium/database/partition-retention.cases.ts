import pg from 'pg';
import { AccountService } from '../../../src/account';
import { RetentionRunner } from '../../../src/common/retention/retention-runner';
import { pgTransactions, TimePartitions, utcDay } from '../../../src/common/retention/time-partitions';
import { newMediumService, type MediumService } from '../../support/medium';
import { waitFor } from '../../support/receiver';

const DAY = 86_400_000;
const dayOf = (at: Date) => at.toISOString().slice(0, 10).replaceAll('-', '');

/**
 * The retention job on day-partitioned tables: it makes partitions ahead of the app clock and drops a day's
 * partition once the whole day is past the table's retention (events, deliveries, finished mail 30 days; the
 * audit log by AUDIT_RETENTION, for ever when unset).
 */
describe.each([
  { auditRetention: undefined, auditKept: true },
  { auditRetention: '90d', auditKept: false },
])('RetentionRunner on partitioned tables (AUDIT_RETENTION=$auditRetention)', ({ auditRetention, auditKept }) => {
  let m: MediumService<RetentionRunner>;
  let n = 0;

  beforeAll(async () => {
    m = await newMediumService(RetentionRunner, { env: auditRetention ? { AUDIT_RETENTION: auditRetention } : {} });
  });
  afterAll(() => m.close());

  const partitions = async (table: string) =>
    (
      await m.sql(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`, [
        table,
      ])
    ).map((r) => r.name as string);
  const newOrg = async () => (await m.module.get(AccountService).createOrg({ name: `Retention ${process.pid} ${++n}` })).id;

  /** One row of each growing table dated `at` (succeeded deliveries: no dispatcher runs here). */
  async function rowsAt(orgId: string, at: Date, mailStatus = 'sent'): Promise<void> {
    const tag = `${at.getTime()}_${++n}`;
    await m.sql(`INSERT INTO events (id, org_id, type, occurred_at, data) VALUES ($1, $2, 'lead.created', $3, '{}')`, [
      `evt_${tag}`,
      orgId,
      at,
    ]);
    const [{ id: endpoint }] = await m.sql(
      `INSERT INTO webhook_endpoints (id, org_id, url, event_types, status, secret_enc, secret_last4, health_since, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'https://x.example/h', '{lead.created}', 'enabled', 's', 'abcd', $2, $2, $2) RETURNING id`,
      [orgId, at],
    );
    await m.sql(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 'lead.created', 'event', 'succeeded', $4)`,
      [orgId, endpoint, `evt_${tag}`, at],
    );
    await m.sql(`INSERT INTO audit_log (org_id, at, actor_type, action, resource_type) VALUES ($1, $2, 'system', 'x', 'call')`, [
      orgId,
      at,
    ]);
    await m.sql(
      `INSERT INTO mail_outbox (org_id, kind, to_address, subject, body, status, next_attempt_at, created_at)
       VALUES ($1, 'k', 'o@firm.example', 's', 'b', $2, $3, $3)`,
      [orgId, mailStatus, at],
    );
  }
  const count = async (table: string, orgId: string) =>
    (await m.sql(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`, [orgId]))[0].n;
  const runAll = async () => {
    for (const t of ['events', 'webhook_deliveries', 'audit_log', 'mail_outbox']) await m.sut.run(t);
  };

  it('makes the partitions of the next week when the clock moves, moving rows DEFAULT held for those days', async () => {
    m.clock.advance(1000 * DAY); // beyond every day the other tests give partitions to, in any order
    const orgId = await newOrg();
    const ahead = new Date(m.clock.now().getTime() + 3 * DAY);
    await rowsAt(orgId, ahead);
    expect(await partitions('events')).not.toContain(`events_p${dayOf(ahead)}`);
    const run = await m.sut.run('events');
    expect(run.created).toHaveLength(8);
    expect(await partitions('events')).toContain(`events_p${dayOf(ahead)}`);
    expect(await partitions('events')).toContain(`events_p${dayOf(new Date(m.clock.now().getTime() + 7 * DAY))}`);
    expect((await m.sql(`SELECT count(*)::int AS n FROM events_p${dayOf(ahead)} WHERE org_id = $1`, [orgId]))[0].n).toBe(1);
    expect(await m.sut.run('events')).toEqual({ created: [], dropped: [], deleted: 0 });
  });

  it('drops the day older than 30 days of events, deliveries and finished mail, keeps newer days and pending mail', async () => {
    m.clock.advance(100 * DAY);
    const orgId = await newOrg();
    await runAll();
    const old = m.clock.now();
    await rowsAt(orgId, old);
    await rowsAt(orgId, new Date(old.getTime() + 5 * DAY));
    const pendingDay = new Date(old.getTime() + DAY);
    await rowsAt(orgId, pendingDay, 'pending');
    m.clock.advance(31 * DAY);
    const runs = Object.fromEntries(
      await Promise.all(['events', 'webhook_deliveries', 'mail_outbox'].map(async (t) => [t, await m.sut.run(t)])),
    );
    expect(runs.events.dropped).toContain(`events_p${dayOf(old)}`);
    expect(runs.webhook_deliveries.dropped).toContain(`webhook_deliveries_p${dayOf(old)}`);
    expect(runs.mail_outbox.dropped).toContain(`mail_outbox_p${dayOf(old)}`);
    expect(await count('events', orgId)).toBe(2);
    expect(await count('webhook_deliveries', orgId)).toBe(2);
    // The next day is also past 30 days now, but it holds pending mail: kept, only its finished rows would go.
    m.clock.advance(DAY);
    expect((await m.sut.run('mail_outbox')).dropped).not.toContain(`mail_outbox_p${dayOf(pendingDay)}`);
    expect(await partitions('mail_outbox')).toContain(`mail_outbox_p${dayOf(pendingDay)}`);
    await m.sql(`UPDATE mail_outbox SET status = 'sent' WHERE org_id = $1 AND status = 'pending'`, [orgId]);
    expect((await m.sut.run('mail_outbox')).dropped).toContain(`mail_outbox_p${dayOf(pendingDay)}`);
    expect(await count('mail_outbox', orgId)).toBe(1);
  });

  it(`${auditKept ? 'keeps' : 'drops'} audit days a year old`, async () => {
    m.clock.advance(50 * DAY);
    const orgId = await newOrg();
    await m.sut.run('audit_log');
    const old = m.clock.now();
    await rowsAt(orgId, old);
    m.clock.advance(365 * DAY);
    const run = await m.sut.run('audit_log');
    expect(run.dropped.includes(`audit_log_p${dayOf(old)}`)).toBe(!auditKept);
    expect(await count('audit_log', orgId)).toBe(auditKept ? 1 : 0);
  });

  it('drops a day without stalling reads: while an open transaction holds the table, the drop retries and reads go on', async () => {
    const day = new Date(m.clock.now().getTime() + 2 * DAY);
    await m.sut.run('events');
    const reader = new pg.Client({ connectionString: m.databaseUrl });
    const other = new pg.Client({ connectionString: m.databaseUrl, statement_timeout: 5000 });
    const dropper = new pg.Client({ connectionString: m.databaseUrl });
    await Promise.all([reader.connect(), other.connect(), dropper.connect()]);
    try {
      await reader.query(`BEGIN`);
      await reader.query(`SELECT count(*) FROM events`);
      // Through a plain pg client, as the growth bench calls it (bench/growth.bench.mjs).
      const drop = new TimePartitions(pgTransactions(dropper)).dropDay('events', day);
      // Its first wait is for the day's own partition (emptied first), held by the reader's scan of every partition.
      const waiting = `SELECT 1 AS waits FROM pg_locks WHERE NOT granted AND mode = 'AccessExclusiveLock'
                          AND relation IN ('events'::regclass, to_regclass('events_p${dayOf(day)}'))`;
      await waitFor(async () => (await m.sql(waiting))[0], 'the drop waiting for the lock');
      // Reads that start while the drop waits for the lock are not queued behind it for longer than its short lock_timeout.
      for (let i = 0; i < 5; i++) await other.query(`SELECT count(*) FROM events`);
      await reader.query(`COMMIT`);
      expect((await drop).dropped).toBe(true);
      expect(await partitions('events')).not.toContain(`events_p${dayOf(day)}`);
    } finally {
      await Promise.all([reader.end(), other.end(), dropper.end()]);
    }
  });

  it('empties a day under its own lock: a writer holding the table delays only the DROP of the emptied partition', async () => {
    const day = utcDay(new Date(m.clock.now().getTime() + 4 * DAY));
    await m.sut.run('events');
    const orgId = await newOrg();
    await m.sql(
      `INSERT INTO events (id, org_id, type, occurred_at, data) SELECT 'evt_e' || g || '_' || $3::text, $1, 'lead.created', $2, '{}' FROM generate_series(1, 20) g`,
      [orgId, new Date(day.getTime() + 3_600_000), `${++n}`],
    );
    expect((await m.sql(`SELECT count(*)::int AS n FROM events_p${dayOf(day)}`))[0].n).toBe(20);
    const writer = new pg.Client({ connectionString: m.databaseUrl });
    const dropper = new pg.Client({ connectionString: m.databaseUrl });
    await Promise.all([writer.connect(), dropper.connect()]);
    try {
      // An insert still open (a read's audit row on audit_log is the case that matters): it holds the parent.
      await writer.query(`BEGIN`);
      await writer.query(`INSERT INTO events (id, org_id, type, occurred_at, data) VALUES ($1, $2, 'lead.created', $3, '{}')`, [
        `evt_w${++n}`,
        orgId,
        m.clock.now(),
      ]);
      const drop = new TimePartitions(pgTransactions(dropper)).dropDay('events', day);
      const waiting = `SELECT 1 AS waits FROM pg_locks WHERE NOT granted AND relation = 'events'::regclass AND mode = 'AccessExclusiveLock'`;
      await waitFor(async () => (await m.sql(waiting))[0], 'the DROP waiting for the parent');
      // The day's rows are already gone; only the empty table's DROP waits (and it takes a millisecond once it may).
      expect((await m.sql(`SELECT count(*)::int AS n FROM events_p${dayOf(day)}`))[0].n).toBe(0);
      await writer.query(`COMMIT`);
      expect((await drop).dropped).toBe(true);
      expect(await partitions('events')).not.toContain(`events_p${dayOf(day)}`);
    } finally {
      await Promise.all([writer.end(), dropper.end()]);
    }
  });
});
