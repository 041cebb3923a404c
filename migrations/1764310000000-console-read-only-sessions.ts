import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The console's read-only links and the sessions they open (`console link --read-only`), and when each session was
 * last seen (`console sessions`). Existing links and sessions are full ones, last seen when they started.
 */
export class ConsoleReadOnlySessions1764310000000 implements MigrationInterface {
  name = 'ConsoleReadOnlySessions1764310000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE console_links ADD COLUMN read_only boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE console_links ALTER COLUMN read_only DROP DEFAULT`);
    await q.query(`ALTER TABLE console_sessions ADD COLUMN read_only boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE console_sessions ALTER COLUMN read_only DROP DEFAULT`);
    await q.query(`ALTER TABLE console_sessions ADD COLUMN last_seen_at timestamptz`);
    await q.query(`UPDATE console_sessions SET last_seen_at = created_at`);
    await q.query(`ALTER TABLE console_sessions ALTER COLUMN last_seen_at SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE console_sessions DROP COLUMN last_seen_at`);
    await q.query(`ALTER TABLE console_sessions DROP COLUMN read_only`);
    await q.query(`ALTER TABLE console_links DROP COLUMN read_only`);
  }
}
