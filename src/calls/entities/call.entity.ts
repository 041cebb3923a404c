import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A call as stored. Reads and writes that matter go through CallsRepository's
 * SQL; the entity documents the columns. `has_recording` belongs to the
 * recordings context (CallsService.setHasRecording); ingestion never writes it.
 */
@Entity('calls')
export class CallEntity {
  @PrimaryColumn('uuid', { name: 'org_id' }) orgId: string;
  @PrimaryColumn('text', { name: 'call_id' }) callId: string;
  @Column('timestamptz', { name: 'started_at', nullable: true }) startedAt: Date | null;
  @Column('boolean', { name: 'has_recording' }) hasRecording: boolean;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
  @Column('integer', { name: 'duration_s', nullable: true }) durationS: number | null;
  @Column('boolean', { nullable: true }) answered: boolean | null;
  @Column('text', { nullable: true }) category: string | null;
  @Column('text', { nullable: true }) urgency: string | null;
  @Column('text', { nullable: true }) language: string | null;
  @Column('text', { nullable: true }) outcome: string | null;
  /** The caller id normalised to E.164; null when unknown or not a valid number. */
  @Column('text', { name: 'from_e164', nullable: true }) fromE164: string | null;
  @Column('text', { name: 'callback_number', nullable: true }) callbackNumber: string | null;
  @Column('text', { name: 'callback_extension', nullable: true }) callbackExtension: string | null;
  @Column('boolean', { name: 'processing_complete', default: false }) processingComplete: boolean;
  /** When call.completed was emitted (at most once per call). */
  @Column('timestamptz', { name: 'completed_event_at', nullable: true }) completedEventAt: Date | null;
  @Column('integer', { name: 'config_version', nullable: true }) configVersion: number | null;
  @Column('text', { name: 'lead_id', nullable: true }) leadId: string | null;
  /** {summary, caller_name, details}; details' references carry their computed key. */
  @Column('jsonb', { nullable: true }) untrusted: Record<string, any> | null;
  @Column('jsonb', { name: 'conversation_summary', nullable: true }) conversationSummary: Record<string, any> | null;
  @Column('jsonb', { nullable: true }) handling: Record<string, any> | null;
}
