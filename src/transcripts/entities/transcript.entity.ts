import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import type { PreparedTranscript } from '../transcript-model.js';

/** A call's transcript header (`transcripts`): its turns are rows of `transcript_turns`, so a page is an index range. */
@Entity('transcripts')
@ForeignKey('calls', ['orgId', 'callId'], ['org_id', 'call_id'], { name: 'transcripts_org_id_call_id_fkey', onDelete: 'CASCADE' })
export class TranscriptEntity {
  @PrimaryColumn('uuid', { name: 'org_id', primaryKeyConstraintName: 'transcripts_pkey' })
  orgId: string;

  @PrimaryColumn('text', { name: 'call_id', primaryKeyConstraintName: 'transcripts_pkey' })
  callId: string;

  @Column('text', { name: 'conversation_status', nullable: true })
  conversationStatus: string | null;

  @Column('text', { name: 'connected_name', nullable: true })
  connectedName: string | null;

  @Column('text', { nullable: true })
  notice: string | null;

  @Column('text', { array: true, default: [] })
  covers: string[];

  @Column('jsonb', { default: [] })
  briefings: PreparedTranscript['briefings'];

  @Column('integer', { name: 'turn_count', default: 0 })
  turnCount: number;

  @Column('integer', { name: 'intake_count', default: 0 })
  intakeCount: number;

  @Column('integer', { name: 'briefing_count', default: 0 })
  briefingCount: number;

  @Column('integer', { name: 'conversation_count', default: 0 })
  conversationCount: number;
}
