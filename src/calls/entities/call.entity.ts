import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { CallHandling, CallUntrusted, ConversationSummary } from '../call-model.js';

/**
 * A call (`calls`), keyed by the firm and the pipeline's call id. `updatedAt` is the sync-safe stamp
 * (change-stamp.ts); a call without `startedAt` is not listed. The list indexes sort `startedAt` and `callId`
 * descending (named here, defined by the migrations alone: TypeORM has no column order, docs/decisions.md).
 */
@Entity('calls')
@Index('calls_org_started_idx', { synchronize: false })
@Index('calls_org_updated_idx', ['orgId', 'updatedAt'])
@Index('calls_org_from_idx', { synchronize: false })
@Index('calls_test_created_idx', ['createdAt'], { where: 'NOT livemode' })
export class CallEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'calls_pkey' })
  @ForeignKey('orgs', { name: 'calls_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'calls_pkey' })
  callId: string;

  @Column('timestamptz', { nullable: true })
  startedAt: Date | null;

  @Column('boolean', { default: false })
  hasRecording: boolean;

  @Column('timestamptz', { default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { default: () => 'now()' })
  updatedAt: Date;

  @Column('integer', { nullable: true })
  durationS: number | null;

  @Column('boolean', { nullable: true })
  answered: boolean | null;

  @Column('text', { nullable: true })
  category: string | null;

  @Column('text', { nullable: true })
  urgency: string | null;

  @Column('text', { nullable: true })
  language: string | null;

  @Column('text', { nullable: true })
  outcome: string | null;

  @Column('text', { nullable: true })
  fromE164: string | null;

  @Column('text', { nullable: true })
  callbackNumber: string | null;

  @Column('text', { nullable: true })
  callbackExtension: string | null;

  @Column('boolean', { default: false })
  processingComplete: boolean;

  @Column('timestamptz', { nullable: true })
  completedEventAt: Date | null;

  @Column('integer', { nullable: true })
  configVersion: number | null;

  @Column('text', { nullable: true })
  leadId: string | null;

  @Column('jsonb', { nullable: true })
  untrusted: CallUntrusted | null;

  @Column('jsonb', { nullable: true })
  conversationSummary: ConversationSummary | null;

  @Column('jsonb', { nullable: true })
  handling: CallHandling | null;

  /** false: a test-mode call, seen only by test keys (its transcript, recording and links follow it). */
  @Column('boolean', { default: true })
  livemode: boolean;
}
