import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Owner emails, written in the transaction that decided to send them and sent by the worker. */
export class MailOutbox1763910200000 implements MigrationInterface {
  name = 'MailOutbox1763910200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE mail_outbox (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        org_id uuid REFERENCES orgs(id) ON DELETE CASCADE,
        kind text NOT NULL,
        to_address text NOT NULL,
        subject text NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'logged', 'failed')),
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        locked_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL,
        sent_at timestamptz
      )`);
    await q.query(`CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX mail_outbox_created_idx ON mail_outbox (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS mail_outbox`);
  }
}
