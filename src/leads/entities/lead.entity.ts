import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, Unique } from 'typeorm';
import type { LeadIntake, LeadStatus } from '../lead-model.js';

/**
 * A lead (`leads`), one per call at most: the pipeline owns what the caller said, the firm owns `status`,
 * `externalId` and `statusReason` (written optimistically on `version`). The list indexes sort `capturedAt` and
 * `leadId` descending (named here, defined by the migrations alone: TypeORM has no column order, docs/decisions.md).
 */
@Entity('leads')
@ForeignKey('calls', ['orgId', 'callId'], ['org_id', 'call_id'], { name: 'leads_org_id_call_id_fkey', onDelete: 'CASCADE' })
@Unique('leads_org_id_call_id_key', ['orgId', 'callId'])
@Check('leads_status_check', `status IN ('new', 'contacted', 'signed', 'rejected')`)
@Check('leads_intake_completeness_check', 'intake_completeness BETWEEN 0 AND 1')
@Index('leads_org_captured_idx', { synchronize: false })
@Index('leads_org_updated_idx', ['orgId', 'updatedAt'])
@Index('leads_org_phone_idx', ['orgId', 'phoneE164'], { where: 'phone_e164 IS NOT NULL' })
@Index('leads_org_external_idx', ['orgId', 'externalId'], { where: 'external_id IS NOT NULL' })
@Index('leads_org_status_idx', { synchronize: false })
export class LeadEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'leads_pkey' })
  orgId: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'leads_pkey' })
  leadId: string;

  @Column('text')
  callId: string;

  @Column('text', { default: 'new' })
  status: LeadStatus;

  @Column('timestamptz', { nullable: true })
  statusUpdatedAt: Date | null;

  @Column('timestamptz')
  capturedAt: Date;

  @Column('timestamptz')
  createdAt: Date;

  @Column('timestamptz')
  updatedAt: Date;

  @Column('text', { nullable: true })
  category: string | null;

  @Column('text', { nullable: true })
  urgency: string | null;

  @Column('text', { nullable: true })
  language: string | null;

  @Column('double precision', { nullable: true })
  intakeCompleteness: number | null;

  @Column('text', { nullable: true })
  phone: string | null;

  @Column('text', { nullable: true })
  phoneE164: string | null;

  @Column('text', { nullable: true })
  phoneExtension: string | null;

  @Column('text', { nullable: true })
  email: string | null;

  @Column('text', { nullable: true })
  externalId: string | null;

  @Column('text', { nullable: true })
  statusReason: string | null;

  @Column('text', { nullable: true })
  untrustedName: string | null;

  @Column('text', { nullable: true })
  untrustedIncidentDate: string | null;

  @Column('jsonb', { nullable: true })
  intake: LeadIntake | null;

  @Column('integer', { default: 1 })
  version: number;

  /** false: a test-mode lead (of a test-mode call). */
  @Column('boolean', { default: true })
  livemode: boolean;
}
