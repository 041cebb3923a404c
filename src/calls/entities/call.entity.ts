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
  @PrimaryColumn('uuid', { name: 'org_id', primaryKeyConstraintName: 'calls_pkey' })
  @ForeignKey('orgs', { name: 'calls_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @PrimaryColumn('text', { name: 'call_id', primaryKeyConstraintName: 'calls_pkey' })
  callId: string;

  @Column('timestamptz', { name: 'started_at', nullable: true })
  startedAt: Date | null;

  @Column('boolean', { name: 'has_recording', default: false })
  hasRecording: boolean;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;

  @Column('integer', { name: 'duration_s', nullable: true })
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

  @Column('text', { name: 'from_e164', nullable: true })
  fromE164: string | null;

  @Column('text', { name: 'callback_number', nullable: true })
  callbackNumber: string | null;

  @Column('text', { name: 'callback_extension', nullable: true })
  callbackExtension: string | null;

  @Column('boolean', { name: 'processing_complete', default: false })
  processingComplete: boolean;

  @Column('timestamptz', { name: 'completed_event_at', nullable: true })
  completedEventAt: Date | null;

  @Column('integer', { name: 'config_version', nullable: true })
  configVersion: number | null;

  @Column('text', { name: 'lead_id', nullable: true })
  leadId: string | null;

  @Column('jsonb', { nullable: true })
  untrusted: CallUntrusted | null;

  @Column('jsonb', { name: 'conversation_summary', nullable: true })
  conversationSummary: ConversationSummary | null;

  @Column('jsonb', { nullable: true })
  handling: CallHandling | null;

  /** false: a test-mode call, seen only by test keys (its transcript, recording and links follow it). */
  @Column('boolean', { default: true })
  livemode: boolean;
}
