import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql } from '../database/generate-sql.js';
import { selectList, type RowOf } from '../database/select-list.js';
import type { SqlCondition } from '../database/sql-params.js';
import { Database, type Tx } from '../database/sql.js';
import { MailOutboxEntity } from './entities/mail-outbox.entity.js';

const CLAIMED = selectList(MailOutboxEntity, 'm', ['id', 'kind', 'toAddress', 'subject', 'body', 'attemptCount']);

/** Column names: under the claim's alias, and alone (its SET's targets and its subquery's). */
const [m, col] = [columns(MailOutboxEntity, 'm'), columns(MailOutboxEntity)];

/** Mail the retention job keeps past its age: not sent yet (the `mail_outbox` entry's `keepWhere`). */
export const STILL_PENDING: SqlCondition = () => `${col.status} = 'pending'`;

/** A claimed message: what sending it needs. */
export type OutgoingMail = RowOf<typeof CLAIMED>;

/**
 * The `mail_outbox` table: the claim (`FOR UPDATE SKIP LOCKED`) written out; the rest through TypeORM's repository.
 * Partitioned by day on `created_at`; a message is found by its id (mail is rare, and a day's partition is small).
 */
@Injectable()
export class MailRepository {
  constructor(
    @InjectRepository(MailOutboxEntity) private readonly outbox: Repository<MailOutboxEntity>,
    private readonly db: Database,
  ) {}

  async insert(tx: Tx, m: { orgId: string | null; kind: string; to: string; subject: string; body: string; now: Date }): Promise<string> {
    const { identifiers } = await tx.getRepository(MailOutboxEntity).insert({
      orgId: m.orgId,
      kind: m.kind,
      toAddress: m.to,
      subject: m.subject,
      body: m.body,
      nextAttemptAt: m.now,
      createdAt: m.now,
    });
    return (identifiers[0] as Pick<MailOutboxEntity, 'id'>).id;
  }

  /** Claims due mail for one sender: lease in database time, attempt counted at claim (ids as an array: a probe per day partition). */
  @GenerateSql({ params: [DummyValue.DATE, 20, 60] })
  async claim(now: Date, limit: number, leaseSeconds: number): Promise<OutgoingMail[]> {
    return this.db.query(
      CLAIMED,
      `UPDATE mail_outbox m SET ${col.lockedUntil} = now() + make_interval(secs => $3), ${col.attemptCount} = ${m.attemptCount} + 1
        WHERE ${m.id} = ANY(ARRAY(
          SELECT ${col.id} FROM mail_outbox
           WHERE ${col.status} = 'pending' AND ${col.nextAttemptAt} <= $1 AND (${col.lockedUntil} IS NULL OR ${col.lockedUntil} < now())
           ORDER BY ${col.nextAttemptAt}
           LIMIT $2
           FOR UPDATE SKIP LOCKED))
        RETURNING ${CLAIMED}`,
      [now, limit, leaseSeconds],
    );
  }

  async markDone(id: string, status: 'sent' | 'logged', at: Date): Promise<void> {
    await this.outbox.update({ id }, { status, sentAt: at, lockedUntil: null, lastError: null });
  }

  /** A failed attempt: due again at `nextAttemptAt`, or failed for good when that is null. */
  async markFailedAttempt(id: string, error: string, nextAttemptAt: Date | null): Promise<void> {
    await this.outbox.update(
      { id },
      nextAttemptAt === null
        ? { status: 'failed', lockedUntil: null, lastError: error.slice(0, 500) }
        : { status: 'pending', nextAttemptAt, lockedUntil: null, lastError: error.slice(0, 500) },
    );
  }
}
