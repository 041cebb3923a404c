import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One row per call with a transcript; its turns live in transcript_turns (one row per turn, paged by index). */
@Entity('transcripts')
export class TranscriptEntity {
  @PrimaryColumn('uuid', { name: 'org_id' }) orgId: string;
  @PrimaryColumn('text', { name: 'call_id' }) callId: string;
  @Column('text', { name: 'conversation_status', nullable: true }) conversationStatus: string | null;
  @Column('text', { name: 'connected_name', nullable: true }) connectedName: string | null;
  @Column('text', { nullable: true }) notice: string | null;
  @Column('text', { array: true }) covers: string[];
  @Column('jsonb') briefings: unknown[];
  @Column('integer', { name: 'turn_count' }) turnCount: number;
  @Column('integer', { name: 'intake_count' }) intakeCount: number;
  @Column('integer', { name: 'briefing_count' }) briefingCount: number;
  @Column('integer', { name: 'conversation_count' }) conversationCount: number;
}

@Entity('transcript_turns')
export class TranscriptTurnEntity {
  @PrimaryColumn('uuid', { name: 'org_id' }) orgId: string;
  @PrimaryColumn('text', { name: 'call_id' }) callId: string;
  /** Index in the whole transcript. */
  @PrimaryColumn('integer') idx: number;
  @Column('text') segment: string;
  /** Index within its segment (paging with `segment`). */
  @Column('integer', { name: 'seg_idx' }) segIdx: number;
  @Column('text') speaker: string;
  @Column('text', { name: 'speaker_name', nullable: true }) speakerName: string | null;
  @Column('text') text: string;
  @Column('double precision', { name: 'start_s', nullable: true }) startS: number | null;
}
