import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A lead. The pipeline owns what it extracted (phone, email, intake, the
 * call's category...); the firm owns status, external_id and status_reason,
 * which re-processing never touches. `version` moves on every firm change
 * (optimistic concurrency of PATCH).
 */
@Entity('leads')
export class LeadEntity {
  @PrimaryColumn('uuid', { name: 'org_id' }) orgId: string;
  @PrimaryColumn('text', { name: 'lead_id' }) leadId: string;
  @Column('text', { name: 'call_id' }) callId: string;
  @Column('text') status: string;
  @Column('timestamptz', { name: 'status_updated_at', nullable: true }) statusUpdatedAt: Date | null;
  @Column('timestamptz', { name: 'captured_at' }) capturedAt: Date;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt: Date;
  @Column('text', { nullable: true }) category: string | null;
  @Column('text', { nullable: true }) urgency: string | null;
  @Column('text', { nullable: true }) language: string | null;
  @Column('double precision', { name: 'intake_completeness', nullable: true }) intakeCompleteness: number | null;
  @Column('text', { nullable: true }) phone: string | null;
  @Column('text', { name: 'phone_e164', nullable: true }) phoneE164: string | null;
  @Column('text', { name: 'phone_extension', nullable: true }) phoneExtension: string | null;
  @Column('text', { nullable: true }) email: string | null;
  @Column('text', { name: 'external_id', nullable: true }) externalId: string | null;
  @Column('text', { name: 'status_reason', nullable: true }) statusReason: string | null;
  @Column('text', { name: 'untrusted_name', nullable: true }) untrustedName: string | null;
  @Column('text', { name: 'untrusted_incident_date', nullable: true }) untrustedIncidentDate: string | null;
  @Column('jsonb', { nullable: true }) intake: Record<string, any> | null;
  @Column('integer') version: number;
}
