import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Each delivery keeps its event's partition key (`events.occurred_at`), so the dispatcher reads a claimed
 * delivery's event from that day's partition alone instead of probing or scanning every day kept
 * (docs/decisions.md, "Dispatch reads by partition key"). Pending deliveries get it now; finished ones are never
 * claimed again and keep it null (the dispatcher falls back to the event's id alone for any row without it).
 */
export class DeliveryEventTime1764150000000 implements MigrationInterface {
  name = 'DeliveryEventTime1764150000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE webhook_deliveries ADD COLUMN event_occurred_at timestamptz');
    await q.query(
      `UPDATE webhook_deliveries d SET event_occurred_at = ev.occurred_at
         FROM events ev WHERE d.status = 'pending' AND ev.id = d.event_id`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE webhook_deliveries DROP COLUMN event_occurred_at');
  }
}
