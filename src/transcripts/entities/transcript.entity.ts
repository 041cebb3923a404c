import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import type { PreparedTranscript } from '../transcript-model.js';

/** A call's transcript header (`transcripts`): its turns are rows of `transcript_turns`, so a page is an index range. */
@Entity('transcripts')
@ForeignKey('calls', ['orgId', 'callId'], ['org_id', 'call_id'], { name: 'transcripts_org_id_call_id_fkey', onDelete: 'CASCADE' })
export class TranscriptEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'transcripts_pkey' })
  orgId: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'transcripts_pkey' })
  callId: string;

  @Column('text', { nullable: true })
  conversationStatus: string | null;

  @Column('text', { nullable: true })
  connectedName: string | null;

  @Column('text', { nullable: true })
  notice: string | null;

  @Column('text', { array: true, default: [] })
  covers: string[];

  @Column('jsonb', { default: [] })
  briefings: PreparedTranscript['briefings'];

  @Column('integer', { default: 0 })
  turnCount: number;

  @Column('integer', { default: 0 })
  intakeCount: number;

  @Column('integer', { default: 0 })
  briefingCount: number;

  @Column('integer', { default: 0 })
  conversationCount: number;
}
