import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { Tx } from '../database/sql.js';
import type { MailOutboxRow } from './mail.tables.js';

/** A claimed message (columns aliased to camelCase). */
export interface OutgoingMail {
  id: string;
  kind: string;
  to: string;
  subject: string;
  body: string;
  attemptCount: number;
}

@Injectable()
export class MailRepository {
  constructor(private readonly sql: PoolSql) {}

  async insert(
    manager: Tx,
    m: { orgId: string | null; kind: string; to: string; subject: string; body: string; now: Date },
  ): Promise<string> {
    const rows = await manager.query<Pick<MailOutboxRow, 'id'>>(
      `INSERT INTO mail_outbox (org_id, kind, to_address, subject, body, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id`,
      [m.orgId, m.kind, m.to, m.subject, m.body, m.now],
    );
    return rows[0].id;
  }

  /** Claims due mail for one sender: lease in database time, attempt counted at claim (ids as an array: a probe per day partition). */
  async claim(now: Date, limit: number, leaseSeconds: number): Promise<OutgoingMail[]> {
    return this.sql.query<OutgoingMail>(
      `UPDATE mail_outbox m SET locked_until = now() + make_interval(secs => $3), attempt_count = m.attempt_count + 1
        WHERE m.id = ANY(ARRAY(
          SELECT id FROM mail_outbox
           WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until < now())
           ORDER BY next_attempt_at
           LIMIT $2
           FOR UPDATE SKIP LOCKED))
        RETURNING m.id, m.kind, m.to_address AS "to", m.subject, m.body, m.attempt_count AS "attemptCount"`,
      [now, limit, leaseSeconds],
    );
  }

  async markDone(id: string, status: 'sent' | 'logged', at: Date): Promise<void> {
    await this.sql.execute(`UPDATE mail_outbox SET status = $2, sent_at = $3, locked_until = NULL, last_error = NULL WHERE id = $1`, [
      id,
      status,
      at,
    ]);
  }

  async markFailedAttempt(id: string, error: string, nextAttemptAt: Date | null): Promise<void> {
    await this.sql.execute(
      `UPDATE mail_outbox SET status = CASE WHEN $3::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
              next_attempt_at = coalesce($3, next_attempt_at), locked_until = NULL, last_error = $2 WHERE id = $1`,
      [id, error.slice(0, 500), nextAttemptAt],
    );
  }
}
