import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('mail_outbox')
export class MailOutboxEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'org_id', nullable: true }) orgId: string | null;
  @Column('text') kind: string;
  @Column('text', { name: 'to_address' }) toAddress: string;
  @Column('text') subject: string;
  @Column('text') body: string;
  @Column('text') status: 'pending' | 'sent' | 'logged' | 'failed';
  @Column('integer', { name: 'attempt_count' }) attemptCount: number;
  @Column('timestamptz', { name: 'next_attempt_at' }) nextAttemptAt: Date;
  @Column('timestamptz', { name: 'locked_until', nullable: true }) lockedUntil: Date | null;
  @Column('text', { name: 'last_error', nullable: true }) lastError: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'sent_at', nullable: true }) sentAt: Date | null;
}
