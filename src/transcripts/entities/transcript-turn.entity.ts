import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { Segment } from '../../calls/index.js';
import { TranscriptEntity } from './transcript.entity.js';

/** One turn of a transcript (`transcript_turns`): `idx` orders the whole transcript, `segIdx` its segment. */
@Entity('transcript_turns')
@ForeignKey(() => TranscriptEntity, ['orgId', 'callId'], ['orgId', 'callId'], {
  name: 'transcript_turns_org_id_call_id_fkey',
  onDelete: 'CASCADE',
})
@Index('transcript_turns_segment_idx', ['orgId', 'callId', 'segment', 'segIdx'], { unique: true })
export class TranscriptTurnEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'transcript_turns_pkey' })
  orgId: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'transcript_turns_pkey' })
  callId: string;

  @PrimaryColumn('integer', { primaryKeyConstraintName: 'transcript_turns_pkey' })
  idx: number;

  @Column('text')
  segment: Segment;

  @Column('integer')
  segIdx: number;

  @Column('text')
  speaker: string;

  @Column('text', { nullable: true })
  speakerName: string | null;

  @Column('text')
  text: string;

  @Column('double precision', { nullable: true })
  startS: number | null;
}
