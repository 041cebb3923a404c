import { Injectable, Logger, type OnModuleInit, type StreamableFile } from '@nestjs/common';
import { join } from 'node:path';
import { Database, type Tx } from '../database/sql.js';
import { AuditService } from '../audit/index.js';
import { CallsService, SEGMENTS, type Segment } from '../calls/index.js';
import { JsonAnswerWriter, sweepSpoolLeftovers } from '../common/http/json-answer.js';
import type { ApiPrincipal } from '../common/http/principal.js';
import { DocumentInvalidError } from '../common/validation/validate-document.js';
import { AppConfig } from '../config/app-config.js';
import type { TranscriptQuery } from './dto/transcript.dto.js';
import { aroundTurns, writeTurns, type TranscriptHead } from './transcript-answer.js';
import type { PreparedTranscript, TranscriptInput, TranscriptTurn } from './transcript-model.js';
import { TranscriptsRepository } from './transcripts.repository.js';

@Injectable()
export class TranscriptsService implements OnModuleInit {
  /** Where answers too large to hold for a slow reader are spooled (nameless files, see json-answer.ts). */
  private readonly spoolDir: string;

  constructor(
    private readonly db: Database,
    private readonly repo: TranscriptsRepository,
    private readonly calls: CallsService,
    private readonly audit: AuditService,
    config: AppConfig,
  ) {
    this.spoolDir = join(config.dataDir, 'tmp', 'answers');
  }

  /** Answers spooled by a process that crashed at the wrong instant may still have a name: remove them. */
  async onModuleInit(): Promise<void> {
    const removed = await sweepSpoolLeftovers(this.spoolDir);
    if (removed > 0) new Logger(TranscriptsService.name).warn({ removed }, 'removed spooled answers a crashed process left behind');
  }

  /**
   * Checks a pipeline transcript and derives what the API serves: consecutive
   * speech of one speaker in one part joined into one turn (briefing indexes
   * re-pointed accordingly), covers in call order, per-part counts. Refuses
   * briefings that point outside the turns or at turns of another part.
   */
  prepare(t: TranscriptInput | null, path = 'transcript'): PreparedTranscript | null {
    if (!t) return null;
    const problems: { path: string; message: string }[] = [];
    const starts = new Set<number>();
    t.briefings.forEach((b, i) => {
      const end = b.start_turn + b.turn_count;
      if (end > t.turns.length) {
        problems.push({
          path: `${path}.briefings[${i}]`,
          message: `start_turn + turn_count (${end}) is beyond the ${t.turns.length} turns`,
        });
      } else if (t.turns.slice(b.start_turn, end).some((turn) => turn.segment !== 'briefing')) {
        problems.push({ path: `${path}.briefings[${i}]`, message: 'must cover briefing turns only' });
      }
      starts.add(b.start_turn);
    });
    t.turns.forEach((turn, i) => {
      if (turn.speaker !== 'staff' && turn.speaker_name !== null) {
        problems.push({ path: `${path}.turns[${i}].speaker_name`, message: 'is only set on staff turns' });
      }
    });
    if (problems.length) throw new DocumentInvalidError(problems);

    const turns: TranscriptTurn[] = [];
    const newIndex: number[] = [];
    t.turns.forEach((turn, i) => {
      const prev = turns[turns.length - 1];
      const joins =
        prev && !starts.has(i) && prev.speaker === turn.speaker && prev.segment === turn.segment && prev.speaker_name === turn.speaker_name;
      if (joins) {
        prev.text = prev.text && turn.text ? `${prev.text} ${turn.text}` : prev.text || turn.text;
        if (prev.start_s === null) prev.start_s = turn.start_s;
      } else {
        turns.push({
          speaker: turn.speaker,
          speaker_name: turn.speaker_name,
          segment: turn.segment as Segment,
          text: turn.text,
          start_s: turn.start_s,
        });
      }
      newIndex.push(turns.length - 1);
    });
    const briefings = t.briefings.map((b) => {
      const start = newIndex[b.start_turn];
      const last = newIndex[b.start_turn + b.turn_count - 1];
      return { attempt: b.attempt, name: b.name, outcome: b.outcome, start_turn: start, turn_count: last - start + 1 };
    });
    const counts = { intake: 0, briefing: 0, conversation: 0 } as Record<Segment, number>;
    for (const turn of turns) counts[turn.segment]++;
    return {
      conversationStatus: t.conversation_status,
      connectedName: t.connected_name,
      notice: t.notice,
      covers: SEGMENTS.filter((s) => counts[s] > 0),
      briefings,
      turns,
      counts,
    };
  }

  /** Ingestion: the call's transcript becomes exactly this one (or none). */
  replace(tx: Tx, orgId: string, callId: string, t: PreparedTranscript | null): Promise<void> {
    return this.repo.replace(tx, orgId, callId, t);
  }

  /**
   * GET /v1/calls/{call_id}/transcript: a call with no conversation answers an empty transcript.
   * The turns are serialised inside the snapshot, page by page (spooled to a file once large),
   * and sent once the transaction is over: a slow reader holds no connection and no row objects.
   */
  async get(principal: ApiPrincipal, callId: string, q: TranscriptQuery): Promise<StreamableFile> {
    const out = new JsonAnswerWriter(this.spoolDir);
    try {
      return await this.answer(principal, callId, q, out);
    } catch (err) {
      await out.discard();
      throw err;
    }
  }

  private async answer(principal: ApiPrincipal, callId: string, q: TranscriptQuery, out: JsonAnswerWriter): Promise<StreamableFile> {
    const start = q.start_turn ?? 0;
    // One snapshot for the header and the turns, so a re-processing committing in between cannot mix two versions.
    const { header, total, returned } = await this.db.transaction('REPEATABLE READ', async (tx) => {
      await this.calls.requireCallIn(tx, principal.orgId, callId, principal.livemode);
      const header = await this.repo.header(tx, principal.orgId, callId);
      const total: number = !header ? 0 : q.segment ? header[`${q.segment}Count`] : header.turnCount;
      const wanted = header && start < total ? Math.min(q.limit ?? total, total - start) : 0;
      const read = (written: number, count: number) => this.repo.turns(tx, principal.orgId, callId, q.segment, start + written, count);
      return { header, total, returned: await writeTurns(out, wanted, read) };
    });
    await this.audit.recordRead({
      orgId: principal.orgId,
      keyId: principal.keyId,
      action: 'call.transcript_read',
      resourceType: 'call',
      resourceIds: [callId],
      details: { start_turn: start, returned, ...(q.segment ? { segment: q.segment } : {}) },
    });
    const hasMore = start + returned < total;
    const head: TranscriptHead = {
      call_id: callId,
      turn_count: total,
      start_turn: start,
      has_more: hasMore,
      next_start_turn: hasMore ? start + returned : null,
      covers: header ? [...header.covers] : [],
      conversation_status: header?.conversationStatus ?? null,
      connected_name: header?.connectedName ?? null,
      briefings: (header?.briefings ?? []).map((b) => ({
        attempt: b.attempt,
        name: b.name,
        outcome: b.outcome,
        start_turn: b.start_turn,
        turn_count: b.turn_count,
      })),
      notice: header?.notice ?? null,
    };
    const { before, after } = aroundTurns(head);
    return out.finish(before, after);
  }
}
