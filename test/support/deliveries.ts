import { Webhook } from 'standardwebhooks';
import { waitFor, type Received } from './receiver';

/** A test's way to the database (a TestApp's or a MediumService's `sql`). */
type Sql = (text: string, params?: unknown[]) => Promise<any[]>;

/** Every delivery of these events has had its first attempt recorded (and none is leased). */
export const firstAttemptsRecorded = (sql: Sql, eventIds: string[], count: number) =>
  waitFor(
    async () =>
      (
        await sql(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1) AND attempt_count > 0 AND id NOT IN (SELECT id FROM webhook_pending_deliveries WHERE locked_until IS NOT NULL)`,
          [eventIds],
        )
      )[0].n === count,
    'first attempts',
  );

/** The delivery has reached `status`, unleased. */
export const deliveryReaches = (sql: Sql, id: string, status: string) =>
  waitFor(
    async () =>
      (
        await sql(
          `SELECT status FROM webhook_deliveries WHERE id = $1 AND id NOT IN (SELECT id FROM webhook_pending_deliveries WHERE locked_until IS NOT NULL)`,
          [id],
        )
      )[0]?.status === status,
    `delivery ${status}`,
  );

/** Verifies with the standardwebhooks library exactly as a receiver would; the error when it refuses. */
export const verifies = (secret: string, got: Received): true | string => {
  try {
    new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    return true;
  } catch (err) {
    return (err as Error).message;
  }
};

/** The signatures a delivery carries (`v1,...` each). */
export const signatures = (got: Received) => String(got.headers['webhook-signature']).split(' ');
