import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The W3C traceparent of the span that recorded an event (null when tracing was off), so every delivery
 * attempt, hours later and in any worker process, joins the trace of the request that caused it.
 */
export class EventsTraceContext1763960500000 implements MigrationInterface {
  name = 'EventsTraceContext1763960500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events ADD COLUMN trace_context text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events DROP COLUMN IF EXISTS trace_context`);
  }
}
