import { Injectable } from '@nestjs/common';
import type { Queryable, Tx } from '../database/sql.js';
import type { CallRef, CallReference, CallWriteState, IngestedCall } from './call-model.js';
import type { CallRow, CallsRow } from './calls.tables.js';
import { SqlParams } from '../database/sql-params.js';
import type { KeysetPosition } from '../common/pagination/keyset.js';

export interface CallListFilters {
  from?: string;
  to?: string;
  outcome?: string;
  category?: string;
  answered?: boolean;
  updatedSince?: string;
  callerE164?: string;
  referenceKey?: string;
  ids?: string[];
}

/** Columns of a list item (the detail adds the heavy ones). */
const LIST_COLUMNS = `c.call_id, c.started_at, c.duration_s, c.answered, c.category, c.urgency, c.language, c.outcome,
  c.lead_id, c.from_e164, c.callback_number, c.callback_extension, c.updated_at, c.processing_complete, c.has_recording, c.untrusted`;
const DETAIL_COLUMNS = `${LIST_COLUMNS}, c.config_version, c.conversation_summary, c.handling`;

/** Every query carries the firm's id. */
@Injectable()
export class CallsRepository {
  /**
   * Keyset page, newest start first with call_id as tie-breaker (index
   * calls_org_started_idx; caller_number uses calls_org_from_idx, reference
   * goes through call_references' primary key). Fetches limit + 1 rows so the
   * caller knows whether there is more.
   */
  async listPage(
    manager: Queryable,
    orgId: string,
    livemode: boolean,
    f: CallListFilters,
    after: KeysetPosition | null,
    limit: number,
  ): Promise<CallRow[]> {
    const q = new SqlParams(orgId);
    const where = ['c.org_id = $1', `c.livemode = ${q.add(livemode)}`, 'c.started_at IS NOT NULL'];
    if (f.from !== undefined) where.push(`c.started_at >= ${q.add(f.from)}::timestamptz`);
    if (f.to !== undefined) where.push(`c.started_at < ${q.add(f.to)}::timestamptz`);
    if (f.outcome !== undefined) where.push(`c.outcome = ${q.add(f.outcome)}`);
    if (f.category !== undefined) where.push(`c.category = ${q.add(f.category)}`);
    if (f.answered !== undefined) where.push(`c.answered = ${q.add(f.answered)}`);
    if (f.updatedSince !== undefined) where.push(`c.updated_at >= ${q.add(f.updatedSince)}::timestamptz`);
    if (f.callerE164 !== undefined) where.push(`c.from_e164 = ${q.add(f.callerE164)}`);
    if (f.referenceKey !== undefined) {
      where.push(`c.call_id IN (SELECT r.call_id FROM call_references r WHERE r.org_id = $1 AND r.key = ${q.add(f.referenceKey)})`);
    }
    if (f.ids !== undefined) where.push(`c.call_id = ANY(${q.add(f.ids)}::text[])`);
    if (after) where.push(`(c.started_at, c.call_id) < (${q.add(after.at)}::timestamptz, ${q.add(after.id)})`);
    const sql = `SELECT ${LIST_COLUMNS} FROM calls c WHERE ${where.join(' AND ')}
                 ORDER BY c.started_at DESC, c.call_id DESC LIMIT ${q.add(limit + 1)}`;
    return manager.query<CallRow>(sql, q.values);
  }

  /** Whether the firm has the call (in this mode; null: in either), and whether it has a recording. */
  async findRef(manager: Queryable, orgId: string, callId: string, livemode: boolean | null): Promise<CallRef | null> {
    const rows = await manager.query<CallRef>(
      `SELECT org_id AS "orgId", call_id AS "callId", has_recording AS "hasRecording" FROM calls
        WHERE org_id = $1 AND call_id = $2 AND ($3::boolean IS NULL OR livemode = $3)`,
      [orgId, callId, livemode],
    );
    return rows[0] ?? null;
  }

  async findDetail(manager: Queryable, orgId: string, livemode: boolean, callId: string): Promise<CallRow | null> {
    const rows = await manager.query<CallRow>(
      `SELECT ${DETAIL_COLUMNS} FROM calls c WHERE c.org_id = $1 AND c.call_id = $2 AND c.livemode = $3`,
      [orgId, callId, livemode],
    );
    return rows[0] ?? null;
  }

  /**
   * Serialises writers of one call (ingestion of the same call_id twice at
   * once) with a transaction-scoped advisory lock, then reads what the
   * rewrite must keep.
   */
  async lockForWrite(manager: Tx, orgId: string, callId: string): Promise<CallWriteState | null> {
    await manager.execute(`SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 7274))`, [orgId, callId]);
    const rows = await manager.query<
      Pick<CallsRow, 'processing_complete' | 'completed_event_at' | 'lead_id' | 'has_recording' | 'livemode'>
    >(
      `SELECT processing_complete, completed_event_at, lead_id, has_recording, livemode FROM calls WHERE org_id = $1 AND call_id = $2 FOR UPDATE`,
      [orgId, callId],
    );
    if (!rows[0]) return null;
    const r = rows[0];
    return {
      processingComplete: r.processing_complete,
      completedEventAt: r.completed_event_at,
      leadId: r.lead_id,
      hasRecording: r.has_recording,
      livemode: r.livemode,
    };
  }

  /** Insert or replace everything the pipeline owns; has_recording, created_at and the mode are kept. */
  async upsert(manager: Tx, orgId: string, c: IngestedCall, leadId: string | null, livemode: boolean): Promise<void> {
    await manager.execute(
      `INSERT INTO calls (org_id, call_id, started_at, duration_s, answered, category, urgency, language, outcome, from_e164,
                          callback_number, callback_extension, processing_complete, config_version, lead_id, untrusted,
                          conversation_summary, handling, created_at, updated_at, livemode)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, clock_timestamp(), clock_timestamp(), $19)
       ON CONFLICT (org_id, call_id) DO UPDATE SET
         started_at = EXCLUDED.started_at, duration_s = EXCLUDED.duration_s, answered = EXCLUDED.answered,
         category = EXCLUDED.category, urgency = EXCLUDED.urgency, language = EXCLUDED.language, outcome = EXCLUDED.outcome,
         from_e164 = EXCLUDED.from_e164, callback_number = EXCLUDED.callback_number, callback_extension = EXCLUDED.callback_extension,
         processing_complete = EXCLUDED.processing_complete, config_version = EXCLUDED.config_version, lead_id = EXCLUDED.lead_id,
         untrusted = EXCLUDED.untrusted, conversation_summary = EXCLUDED.conversation_summary, handling = EXCLUDED.handling,
         updated_at = EXCLUDED.updated_at`,
      [
        orgId,
        c.callId,
        c.startedAt,
        c.durationS,
        c.answered,
        c.category,
        c.urgency,
        c.language,
        c.outcome,
        c.fromE164,
        c.callbackNumber,
        c.callbackExtension,
        c.processingComplete,
        c.configVersion,
        leadId,
        JSON.stringify(c.untrusted),
        c.conversationSummary === null ? null : JSON.stringify(c.conversationSummary),
        c.handling === null ? null : JSON.stringify(c.handling),
        livemode,
      ],
    );
  }

  async replaceReferences(manager: Tx, orgId: string, callId: string, references: CallReference[]): Promise<void> {
    await manager.execute('DELETE FROM call_references WHERE org_id = $1 AND call_id = $2', [orgId, callId]);
    const keys = [...new Set(references.map((r) => r.key))];
    if (keys.length) {
      await manager.execute(`INSERT INTO call_references (org_id, key, call_id) SELECT $1, k, $2 FROM unnest($3::text[]) AS k`, [
        orgId,
        callId,
        keys,
      ]);
    }
  }

  async markCompletedEvent(manager: Tx, orgId: string, callId: string): Promise<void> {
    await manager.execute('UPDATE calls SET completed_event_at = clock_timestamp() WHERE org_id = $1 AND call_id = $2', [orgId, callId]);
  }

  /** Caller has run beginChange (the stamp is clock_timestamp(), see change-stamp.ts). */
  async setHasRecording(manager: Tx, orgId: string, callId: string, hasRecording: boolean): Promise<void> {
    await manager.execute('UPDATE calls SET has_recording = $3, updated_at = clock_timestamp() WHERE org_id = $1 AND call_id = $2', [
      orgId,
      callId,
      hasRecording,
    ]);
  }
}
