import { Injectable } from '@nestjs/common';
import type { Tx } from '../database/sql.js';
import type { Segment } from '../calls/index.js';
import type { PreparedTranscript, TranscriptTurn } from './transcript-model.js';
import type { TranscriptTurnsRow, TranscriptsRow } from './transcripts.tables.js';

export type TranscriptHeaderRow = Omit<TranscriptsRow, 'org_id' | 'call_id'>;

@Injectable()
export class TranscriptsRepository {
  async replace(manager: Tx, orgId: string, callId: string, t: PreparedTranscript | null): Promise<void> {
    // Turns go with their header (ON DELETE CASCADE).
    await manager.execute('DELETE FROM transcripts WHERE org_id = $1 AND call_id = $2', [orgId, callId]);
    if (!t) return;
    await manager.execute(
      `INSERT INTO transcripts (org_id, call_id, conversation_status, connected_name, notice, covers, briefings, turn_count, intake_count, briefing_count, conversation_count)
       VALUES ($1, $2, $3, $4, $5, $6::text[], $7::jsonb, $8, $9, $10, $11)`,
      [
        orgId,
        callId,
        t.conversationStatus,
        t.connectedName,
        t.notice,
        t.covers,
        JSON.stringify(t.briefings),
        t.turns.length,
        t.counts.intake,
        t.counts.briefing,
        t.counts.conversation,
      ],
    );
    if (!t.turns.length) return;
    const seen: Record<string, number> = { intake: 0, briefing: 0, conversation: 0 };
    const segIdx = t.turns.map((turn) => seen[turn.segment]++);
    await manager.execute(
      `INSERT INTO transcript_turns (org_id, call_id, idx, segment, seg_idx, speaker, speaker_name, text, start_s)
       SELECT $1, $2, u.idx - 1, u.segment, u.seg_idx, u.speaker, u.speaker_name, u.text, u.start_s
         FROM unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::float8[])
              WITH ORDINALITY AS u(segment, seg_idx, speaker, speaker_name, text, start_s, idx)`,
      [
        orgId,
        callId,
        t.turns.map((x) => x.segment),
        segIdx,
        t.turns.map((x) => x.speaker),
        t.turns.map((x) => x.speaker_name),
        t.turns.map((x) => x.text),
        t.turns.map((x) => x.start_s),
      ],
    );
  }

  async header(manager: Tx, orgId: string, callId: string): Promise<TranscriptHeaderRow | null> {
    const rows = await manager.query<TranscriptHeaderRow>(
      `SELECT conversation_status, connected_name, notice, covers, briefings, turn_count, intake_count, briefing_count, conversation_count
         FROM transcripts WHERE org_id = $1 AND call_id = $2`,
      [orgId, callId],
    );
    return rows[0] ?? null;
  }

  /** Turns by index range: the whole transcript's idx, or the segment's own seg_idx (primary key / segment index). */
  async turns(
    manager: Tx,
    orgId: string,
    callId: string,
    segment: Segment | undefined,
    start: number,
    limit: number | undefined,
  ): Promise<TranscriptTurn[]> {
    const params: unknown[] = [orgId, callId, start];
    let sql: string;
    if (segment) {
      params.push(segment);
      sql = `SELECT speaker, speaker_name, segment, text, start_s FROM transcript_turns
              WHERE org_id = $1 AND call_id = $2 AND segment = $4 AND seg_idx >= $3 ORDER BY seg_idx`;
    } else {
      sql = `SELECT speaker, speaker_name, segment, text, start_s FROM transcript_turns
              WHERE org_id = $1 AND call_id = $2 AND idx >= $3 ORDER BY idx`;
    }
    if (limit !== undefined) {
      params.push(limit);
      sql += ` LIMIT $${params.length}`;
    }
    return manager.query<Pick<TranscriptTurnsRow, 'speaker' | 'speaker_name' | 'segment' | 'text' | 'start_s'>>(sql, params);
  }
}
