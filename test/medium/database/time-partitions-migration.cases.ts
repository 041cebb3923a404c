import pg from 'pg';
import { MIGRATIONS } from '../../../migrations';
import { TimePartitions1764100000000 } from '../../../migrations/1764100000000-time-partitions';
import { databaseWith, migrationsThrough } from '../../support/migrated-database';

const DAY = 86_400_000;
const TABLES = ['events', 'webhook_deliveries', 'audit_log', 'mail_outbox'];
/** Each table's rows in a stable order, as JSON (so every column of every row is compared). */
const ORDER: Record<string, string> = { events: 'seq', webhook_deliveries: 'id', audit_log: 'id', mail_outbox: 'id' };

/** Rows in the old (unpartitioned) shape: a year-old audit row, last month, today, next week; and a column an earlier migration added. */
async function seedOldShape(c: pg.Client): Promise<void> {
  await c.query(`ALTER TABLE events ADD COLUMN added_by_earlier_migration boolean NOT NULL DEFAULT true`);
  const [{ id: org }] = (await c.query(`INSERT INTO orgs (slug) VALUES ('firm') RETURNING id`)).rows;
  const [{ id: endpoint }] = (
    await c.query(
      `INSERT INTO webhook_endpoints (id, org_id, url, event_types, status, secret_enc, secret_last4, health_since, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'https://x.example/h', '{lead.created}', 'enabled', 's', 'abcd', now(), now(), now()) RETURNING id`,
      [org],
    )
  ).rows;
  for (const [i, daysAgo] of [400, 35, 3, 0, -6].entries()) {
    const at = new Date(Date.now() - daysAgo * DAY);
    await c.query(
      `INSERT INTO events (id, org_id, type, occurred_at, data, trace_context, added_by_earlier_migration) VALUES ($1, $2, 'lead.created', $3, '{"b":1,"a":2}', $4, $5)`,
      [`evt_${i}`, org, at, i % 2 ? '00-abc-def-01' : null, i % 2 === 0],
    );
    await c.query(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, attempts, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 'lead.created', 'event', 'succeeded', '[{"at":"x"}]', $4)`,
      [org, endpoint, `evt_${i}`, at],
    );
    await c.query(
      `INSERT INTO audit_log (org_id, at, actor_type, action, resource_type, resource_ids) VALUES ($1, $2, 'api_key', 'calls.listed', 'call', '{a,b}')`,
      [org, at],
    );
    await c.query(
      `INSERT INTO mail_outbox (org_id, kind, to_address, subject, body, status, next_attempt_at, created_at)
       VALUES ($1, 'k', 'o@firm.example', 's', 'b', $2, $3, $3)`,
      [org, i % 2 ? 'pending' : 'sent', at],
    );
  }
}

async function snapshot(c: pg.Client): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const t of TABLES) out[t] = (await c.query(`SELECT to_jsonb(x) AS row FROM ${t} x ORDER BY ${ORDER[t]}`)).rows.map((r) => r.row);
  return out;
}

describe('migration 1764100000000: the growing tables partitioned by day', () => {
  const previous = MIGRATIONS.slice(0, MIGRATIONS.indexOf(TimePartitions1764100000000));
  let c: pg.Client;
  let before: Record<string, unknown[]>;

  beforeAll(async () => {
    const url = await databaseWith(previous);
    c = new pg.Client({ connectionString: url });
    await c.connect();
    await seedOldShape(c);
    before = await snapshot(c);
    // Up to this migration only: later ones may add columns of their own.
    await databaseWith(migrationsThrough(MIGRATIONS, TimePartitions1764100000000), url);
  });
  afterAll(() => c.end());

  it('keeps every row, every column (one added by an earlier migration included) and every value', async () => {
    expect(before.events).toHaveLength(5);
    expect(await snapshot(c)).toEqual(before);
  });

  it('makes each table partitioned by range on its creation time, with a DEFAULT partition, days a week ahead and one for the oldest', async () => {
    const keys = (await c.query(`SELECT c.relname AS t, pg_get_partkeydef(c.oid) AS key FROM pg_class c WHERE c.relkind = 'p' ORDER BY 1`))
      .rows;
    expect(keys).toEqual([
      { t: 'audit_log', key: 'RANGE (at)' },
      { t: 'events', key: 'RANGE (occurred_at)' },
      { t: 'mail_outbox', key: 'RANGE (created_at)' },
      { t: 'webhook_deliveries', key: 'RANGE (created_at)' },
    ]);
    const parts = (
      await c.query(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'audit_log'::regclass`,
      )
    ).rows.map((r) => r.name as string);
    const day = (ms: number) => new Date(Date.now() + ms).toISOString().slice(0, 10).replaceAll('-', '');
    expect(parts).toEqual(expect.arrayContaining(['audit_log_default', `audit_log_p${day(-35 * DAY)}`, `audit_log_p${day(7 * DAY)}`]));
    expect(parts.filter((p) => p.startsWith('audit_log_before_'))).toHaveLength(1);
    // The year-old row sits in the one partition before the daily ones, not in DEFAULT.
    expect((await c.query(`SELECT count(*)::int AS n FROM audit_log_default`)).rows[0].n).toBe(0);
    const fill = await c.query(`SELECT reloptions FROM pg_class WHERE relname = $1`, [`webhook_deliveries_p${day(0)}`]);
    expect(fill.rows[0].reloptions).toEqual(['fillfactor=80']);
  });

  it('keeps the keys (with the partition key), sequences, foreign keys and the notification of new events', async () => {
    const pk = await c.query(`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'events_pkey'`);
    expect(pk.rows[0].def).toBe('PRIMARY KEY (seq, occurred_at)');
    await c.query(`LISTEN events`);
    const notified = new Promise<string>((resolve) => c.once('notification', (n) => resolve(n.payload ?? '')));
    const [{ org_id: org }] = (await c.query(`SELECT org_id FROM events LIMIT 1`)).rows;
    const seq = await c.query(
      `INSERT INTO events (id, org_id, type, occurred_at, data) VALUES ('evt_new', $1, 'lead.created', now(), '{}')
       RETURNING seq::bigint > (SELECT max(seq) FROM events WHERE id <> 'evt_new') AS after, pg_notify('events', $1 || ':lead.created')`,
      [org],
    );
    expect(seq.rows[0].after).toBe(true);
    expect(await notified).toBe(`${org}:lead.created`);
    await expect(
      c.query(
        `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, created_at)
         VALUES (gen_random_uuid(), $1, gen_random_uuid(), 'e', 't', 'event', 'pending', now())`,
        [org],
      ),
    ).rejects.toThrow(/foreign key/);
    await c.query(`DELETE FROM orgs WHERE id = $1`, [org]);
    for (const t of TABLES) expect((await c.query(`SELECT count(*)::int AS n FROM ${t}`)).rows[0].n).toBe(0);
  });
});
