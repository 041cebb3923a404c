import type { Segment } from '../calls/index.js';
import { defineTable } from '../database/tables.js';
import type { PreparedTranscript } from './transcript-model.js';

/** A row of `transcript_turns`, as node-postgres returns it. */
export interface TranscriptTurnsRow {
  org_id: string;
  call_id: string;
  idx: number;
  segment: Segment;
  seg_idx: number;
  speaker: string;
  speaker_name: string | null;
  text: string;
  start_s: number | null;
}

export const TRANSCRIPT_TURNS_TABLE = defineTable<TranscriptTurnsRow>('transcript_turns', {
  org_id: 'uuid',
  call_id: 'text',
  idx: 'integer',
  segment: 'text',
  seg_idx: 'integer',
  speaker: 'text',
  speaker_name: 'text null',
  text: 'text',
  start_s: 'double precision null',
});

/** A row of `transcripts`, as node-postgres returns it. */
export interface TranscriptsRow {
  org_id: string;
  call_id: string;
  conversation_status: string | null;
  connected_name: string | null;
  notice: string | null;
  covers: string[];
  briefings: PreparedTranscript['briefings'];
  turn_count: number;
  intake_count: number;
  briefing_count: number;
  conversation_count: number;
}

export const TRANSCRIPTS_TABLE = defineTable<TranscriptsRow>('transcripts', {
  org_id: 'uuid',
  call_id: 'text',
  conversation_status: 'text null',
  connected_name: 'text null',
  notice: 'text null',
  covers: 'text[]',
  briefings: 'jsonb',
  turn_count: 'integer',
  intake_count: 'integer',
  briefing_count: 'integer',
  conversation_count: 'integer',
});
