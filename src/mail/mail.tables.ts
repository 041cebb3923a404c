import { defineTable } from '../database/tables.js';

/** A row of `mail_outbox`, as node-postgres returns it. */
export interface MailOutboxRow {
  id: string;
  org_id: string | null;
  kind: string;
  to_address: string;
  subject: string;
  body: string;
  status: string;
  attempt_count: number;
  next_attempt_at: Date;
  locked_until: Date | null;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

export const MAIL_OUTBOX_TABLE = defineTable<MailOutboxRow>('mail_outbox', {
  id: 'uuid',
  org_id: 'uuid null',
  kind: 'text',
  to_address: 'text',
  subject: 'text',
  body: 'text',
  status: 'text',
  attempt_count: 'integer',
  next_attempt_at: 'timestamp with time zone',
  locked_until: 'timestamp with time zone null',
  last_error: 'text null',
  created_at: 'timestamp with time zone',
  sent_at: 'timestamp with time zone null',
});
