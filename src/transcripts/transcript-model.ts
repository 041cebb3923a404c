import type { Segment } from '../calls/index.js';

/** A transcript as the pipeline sends it (already type-checked by ingestion). */
export interface TranscriptInput {
  conversation_status: string | null;
  connected_name: string | null;
  briefings: { attempt: number; name: string; outcome: string; start_turn: number; turn_count: number }[];
  notice: string | null;
  turns: { speaker: string; speaker_name: string | null; segment: string; text: string; start_s: number | null }[];
}

export interface TranscriptTurn {
  speaker: string;
  speaker_name: string | null;
  segment: Segment;
  text: string;
  start_s: number | null;
}

/** Ready to store: turns joined, briefings re-indexed, covers and counts derived. */
export interface PreparedTranscript {
  conversationStatus: string | null;
  connectedName: string | null;
  notice: string | null;
  covers: Segment[];
  briefings: { attempt: number; name: string; outcome: string; start_turn: number; turn_count: number }[];
  turns: TranscriptTurn[];
  counts: Record<Segment, number>;
}
