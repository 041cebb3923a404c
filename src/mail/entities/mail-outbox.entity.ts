import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

export type MailStatus = 'pending' | 'sent' | 'logged' | 'failed';

/**
 * An owner email (`mail_outbox`), written in the transaction that decided to send it and sent by the worker.
 * Partitioned by UTC day on `createdAt`, which is therefore part of the primary key.
 */
@Entity('mail_outbox')
@Check('mail_outbox_status_check', `status IN ('pending', 'sent', 'logged', 'failed')`)
@Index('mail_outbox_due_idx', ['nextAttemptAt'], { where: `status = 'pending'` })
@Index('mail_outbox_created_idx', ['createdAt'])
export class MailOutboxEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'mail_outbox_pkey' })
  id: string;

  /** Null: mail of no firm. */
  @Column('uuid', { nullable: true })
  @ForeignKey('orgs', { name: 'mail_outbox_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string | null;

  @Column('text')
  kind: string;

  @Column('text')
  toAddress: string;

  @Column('text')
  subject: string;

  @Column('text')
  body: string;

  @Column('text', { default: 'pending' })
  status: MailStatus;

  @Column('integer', { default: 0 })
  attemptCount: number;

  @Column('timestamptz')
  nextAttemptAt: Date;

  @Column('timestamptz', { nullable: true })
  lockedUntil: Date | null;

  @Column('text', { nullable: true })
  lastError: string | null;

  @PrimaryColumn('timestamptz', { primaryKeyConstraintName: 'mail_outbox_pkey' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  sentAt: Date | null;
}
