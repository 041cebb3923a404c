import { Injectable } from '@nestjs/common';
import type { Segment } from '../calls/index.js';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { selectList, type RowOf } from '../database/select-list.js';
import type { Tx } from '../database/sql.js';
import { TranscriptTurnEntity } from './entities/transcript-turn.entity.js';
import { TranscriptEntity } from './entities/transcript.entity.js';
import type { PreparedTranscript, TranscriptTurn } from './transcript-model.js';

const HEADER = selectList(TranscriptEntity, 't', [
  'conversationStatus',
  'connectedName',
  'notice',
  'covers',
  'briefings',
  'turnCount',
  'intakeCount',
  'briefingCount',
  'conversationCount',
]);
const TURN = selectList(TranscriptTurnEntity, 'u', ['speaker', 'speakerName', 'segment', 'text', 'startS']);

/**
 * Column names: under the statements' aliases, and alone (the turns' INSERT; its SELECT reads the unnest's own
 * columns, named after them).
 */
const [t, u, turn] = [columns(TranscriptEntity, 't'), columns(TranscriptTurnEntity, 'u'), columns(TranscriptTurnEntity)];

export type TranscriptHeaderRow = RowOf<typeof HEADER>;
/** A turn as a page reads it. */
export type TurnRow = RowOf<typeof TURN>;

const TURNS: TranscriptTurn[] = [{ segment: 'intake', speaker: 'caller', speaker_name: null, text: DummyValue.TEXT, start_s: 0 }];

/**
 * A call's transcript: a header row and one row per turn, so a page is an index range. The header through TypeORM's
 * repository; written out: the turns' one-statement insert (any number of turns, one statement) and the reads of a
 * page, which run in one snapshot per answer.
 */
@Injectable()
export class TranscriptsRepository {
  async replace(tx: Tx, orgId: string, callId: string, transcript: PreparedTranscript | null): Promise<void> {
    // Turns go with their header (ON DELETE CASCADE).
    await tx.getRepository(TranscriptEntity).delete({ orgId, callId });
    if (!transcript) return;
    await tx.getRepository(TranscriptEntity).insert({
      orgId,
      callId,
      conversationStatus: transcript.conversationStatus,
      connectedName: transcript.connectedName,
      notice: transcript.notice,
      covers: transcript.covers,
      briefings: transcript.briefings,
      turnCount: transcript.turns.length,
      intakeCount: transcript.counts.intake,
      briefingCount: transcript.counts.briefing,
      conversationCount: transcript.counts.conversation,
    });
    await this.insertTurns(tx, orgId, callId, transcript.turns);
  }

  /** Every turn in one statement (unnest), however many: its bind parameters do not grow with the turns. */
  @GenerateSql({ params: [SQL, DummyValue.UUID, DummyValue.TEXT, TURNS] })
  async insertTurns(tx: Tx, orgId: string, callId: string, turns: TranscriptTurn[]): Promise<void> {
    if (!turns.length) return;
    const seen: Record<string, number> = { intake: 0, briefing: 0, conversation: 0 };
    const segIdx = turns.map((x) => seen[x.segment]++);
    await tx.execute(
      `INSERT INTO transcript_turns (${turn.orgId}, ${turn.callId}, ${turn.idx}, ${turn.segment}, ${turn.segIdx}, ${turn.speaker}, ${turn.speakerName}, ${turn.text}, ${turn.startS})
       SELECT $1, $2, u.idx - 1, u.segment, u.seg_idx, u.speaker, u.speaker_name, u.text, u.start_s
         FROM unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::float8[])
              WITH ORDINALITY AS u(segment, seg_idx, speaker, speaker_name, text, start_s, idx)`,
      [
        orgId,
        callId,
        turns.map((x) => x.segment),
        segIdx,
        turns.map((x) => x.speaker),
        turns.map((x) => x.speaker_name),
        turns.map((x) => x.text),
        turns.map((x) => x.start_s),
      ],
    );
  }

  @GenerateSql({ params: [SQL, DummyValue.UUID, DummyValue.TEXT] })
  async header(tx: Tx, orgId: string, callId: string): Promise<TranscriptHeaderRow | null> {
    const [row] = await tx.query(HEADER, `SELECT ${HEADER} FROM transcripts t WHERE ${t.orgId} = $1 AND ${t.callId} = $2`, [orgId, callId]);
    return row ?? null;
  }

  /** Turns by index range: the whole transcript's idx, or the segment's own seg_idx (primary key / segment index). */
  @GenerateSql(
    { name: 'whole transcript, to its end', params: [SQL, DummyValue.UUID, DummyValue.TEXT, undefined, 0, undefined] },
    { name: 'one segment, a page', params: [SQL, DummyValue.UUID, DummyValue.TEXT, 'intake', 0, 100] },
  )
  async turns(
    tx: Tx,
    orgId: string,
    callId: string,
    segment: Segment | undefined,
    start: number,
    limit: number | undefined,
  ): Promise<TurnRow[]> {
    const params: unknown[] = [orgId, callId, start];
    let text: string;
    if (segment) {
      params.push(segment);
      text = `SELECT ${TURN} FROM transcript_turns u
               WHERE ${u.orgId} = $1 AND ${u.callId} = $2 AND ${u.segment} = $4 AND ${u.segIdx} >= $3 ORDER BY ${u.segIdx}`;
    } else {
      text = `SELECT ${TURN} FROM transcript_turns u
               WHERE ${u.orgId} = $1 AND ${u.callId} = $2 AND ${u.idx} >= $3 ORDER BY ${u.idx}`;
    }
    if (limit !== undefined) {
      params.push(limit);
      text += ` LIMIT $${params.length}`;
    }
    return tx.query(TURN, text, params);
  }
}
