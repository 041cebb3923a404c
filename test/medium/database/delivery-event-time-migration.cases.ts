import pg from 'pg';
import { MIGRATIONS } from '../../../migrations';
import { DeliveryEventTime1764150000000 } from '../../../migrations/1764150000000-delivery-event-time';
import { databaseWith, migrationsThrough } from '../../support/migrated-database';

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
