import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { readWithKeyStanding, type KeyCaller, type WithStanding } from '../auth/index.js';
import type { KeysetPosition } from '../common/pagination/keyset.js';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { selectList, type RowOf } from '../database/select-list.js';
import { SqlParams } from '../database/sql-params.js';
import type { PreparingQueryable, Queryable, Tx } from '../database/sql.js';
import type { CallRef, CallReference, CallWriteState, IngestedCall } from './call-model.js';
import { CallReferenceEntity } from './entities/call-reference.entity.js';
import { CallEntity } from './entities/call.entity.js';

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

const LIST_PROPERTIES = [
  'callId',
  'startedAt',
  'durationS',
  'answered',
  'category',
  'urgency',
  'language',
  'outcome',
  'leadId',
  'fromE164',
  'callbackNumber',
  'callbackExtension',
  'updatedAt',
  'processingComplete',
  'hasRecording',
  'untrusted',
] as const;

/** Columns of a list item; the detail adds the heavy ones. */
const LIST = selectList(CallEntity, 'c', LIST_PROPERTIES);
const DETAIL = selectList(CallEntity, 'c', [...LIST_PROPERTIES, 'configVersion', 'conversationSummary', 'handling']);

/** Column names: under the statements' aliases, alone (an INSERT's, a SET's), and as an upsert offered them. */
const [c, t, col, excluded] = [columns(CallEntity, 'c'), columns(CallEntity, 't'), columns(CallEntity), columns(CallEntity, 'EXCLUDED')];
const [r, ref] = [columns(CallReferenceEntity, 'r'), columns(CallReferenceEntity)];

/** A call as the list reads it (listed calls have started: `startedAt IS NOT NULL`). */
export type CallListRow = RowOf<typeof LIST>;
/** A call as the detail reads it. */
export type CallDetailRow = RowOf<typeof DETAIL>;

const FILTERS: CallListFilters = {
  from: '2026-01-01T00:00:00.000Z',
  to: '2026-02-01T00:00:00.000Z',
  outcome: DummyValue.TEXT,
  category: DummyValue.TEXT,
  answered: true,
  updatedSince: '2026-01-01T00:00:00.000Z',
  callerE164: '+13125550123',
  referenceKey: DummyValue.TEXT,
  ids: [DummyValue.TEXT],
};
const AFTER: KeysetPosition = { at: '2026-01-01T00:00:00.000Z', id: DummyValue.TEXT };

/**
 * The `calls` and `call_references` tables; every query carries the firm's id. Written out: the keyset page, the
 * reads of a keyed request, and the pipeline's upsert; lookups and single-column updates through TypeORM.
 */
@Injectable()
export class CallsRepository {
  constructor(@InjectRepository(CallEntity) private readonly calls: Repository<CallEntity>) {}

  /**
   * Keyset page, newest start first with call_id as tie-breaker (index
   * calls_org_started_idx; caller_number uses calls_org_from_idx, reference
   * goes through call_references' primary key). Fetches limit + 1 rows so the
   * caller knows whether there is more.
   */
  @GenerateSql(
    { name: 'first page', params: [SQL, DummyValue.UUID, true, {}, null, 100] },
    { name: 'every filter, after a position', params: [SQL, DummyValue.UUID, true, FILTERS, AFTER, 100] },
  )
  async listPage(
    db: Queryable,
    orgId: string,
    livemode: boolean,
    f: CallListFilters,
    after: KeysetPosition | null,
    limit: number,
  ): Promise<CallListRow[]> {
    const q = new SqlParams(orgId);
    const where = [`${c.orgId} = $1`, `${c.livemode} = ${q.add(livemode)}`, `${c.startedAt} IS NOT NULL`];
    if (f.from !== undefined) where.push(`${c.startedAt} >= ${q.add(f.from)}::timestamptz`);
    if (f.to !== undefined) where.push(`${c.startedAt} < ${q.add(f.to)}::timestamptz`);
    if (f.outcome !== undefined) where.push(`${c.outcome} = ${q.add(f.outcome)}`);
    if (f.category !== undefined) where.push(`${c.category} = ${q.add(f.category)}`);
    if (f.answered !== undefined) where.push(`${c.answered} = ${q.add(f.answered)}`);
    if (f.updatedSince !== undefined) where.push(`${c.updatedAt} >= ${q.add(f.updatedSince)}::timestamptz`);
    if (f.callerE164 !== undefined) where.push(`${c.fromE164} = ${q.add(f.callerE164)}`);
    if (f.referenceKey !== undefined) {
      where.push(
        `${c.callId} IN (SELECT ${r.callId} FROM call_references r WHERE ${r.orgId} = $1 AND ${r.key} = ${q.add(f.referenceKey)})`,
      );
    }
    if (f.ids !== undefined) where.push(`${c.callId} = ANY(${q.add(f.ids)}::text[])`);
    if (after) where.push(`(${c.startedAt}, ${c.callId}) < (${q.add(after.at)}::timestamptz, ${q.add(after.id)})`);
    const text = `SELECT ${LIST} FROM calls c WHERE ${where.join(' AND ')}
                  ORDER BY ${c.startedAt} DESC, ${c.callId} DESC LIMIT ${q.add(limit + 1)}`;
    return db.query(LIST, text, q.values);
  }

  /** Whether the firm has the call (in this mode; null: in either), and whether it has a recording; in `tx` when given. */
  async findRef(tx: Tx | null, orgId: string, callId: string, livemode: boolean | null): Promise<CallRef | null> {
    const row = await (tx?.getRepository(CallEntity) ?? this.calls).findOne({
      select: { orgId: true, callId: true, hasRecording: true },
      where: livemode === null ? { orgId, callId } : { orgId, callId, livemode },
    });
    return row && { orgId: row.orgId, callId: row.callId, hasRecording: row.hasRecording };
  }

  /** The detail as the key sees it (the test helpers' re-processing; the bench's bare handler). */
  @GenerateSql({ params: [SQL, DummyValue.UUID, true, DummyValue.TEXT] })
  async findDetail(db: Queryable, orgId: string, livemode: boolean, callId: string): Promise<CallDetailRow | null> {
    const [row] = await db.query(
      DETAIL,
      `SELECT ${DETAIL} FROM calls c WHERE ${c.orgId} = $1 AND ${c.callId} = $2 AND ${c.livemode} = $3`,
      [orgId, callId, livemode],
    );
    return row ?? null;
  }

  /**
   * GET /v1/calls/{call_id} in one statement: the calling key's standing and the firm's timezone (auth's
   * readWithKeyStanding), with the call when the firm has it in the key's mode.
   */
  @GenerateSql({ params: [SQL, { keyId: DummyValue.UUID, orgId: DummyValue.UUID, livemode: true }, DummyValue.TEXT] })
  findDetailWithStanding(
    db: PreparingQueryable,
    caller: KeyCaller & { livemode: boolean },
    callId: string,
  ): Promise<WithStanding<CallDetailRow>> {
    return readWithKeyStanding(db, caller, {
      name: 'call_detail_with_standing',
      columns: DETAIL,
      join: (params, firm) =>
        `calls c ON ${c.orgId} = ${firm} AND ${c.callId} = ${params.add(callId)} AND ${c.livemode} = ${params.add(caller.livemode)}`,
      present: 'callId',
    });
  }

  /**
   * Serialises writers of one call (ingestion of the same call_id twice at
   * once) with a transaction-scoped advisory lock, then reads what the
   * rewrite must keep, under the row's lock.
   */
  @GenerateSql({ params: [SQL, DummyValue.UUID, DummyValue.TEXT] })
  async lockForWrite(tx: Tx, orgId: string, callId: string): Promise<CallWriteState | null> {
    await tx.execute(`SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2, 7274))`, [orgId, callId]);
    const row = await tx.getRepository(CallEntity).findOne({
      select: { processingComplete: true, completedEventAt: true, leadId: true, hasRecording: true, livemode: true },
      where: { orgId, callId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!row) return null;
    const { processingComplete, completedEventAt, leadId, hasRecording, livemode } = row;
    return { processingComplete, completedEventAt, leadId, hasRecording, livemode };
  }

  /**
   * Test-mode calls made before `cutoff`, oldest first, at most `limit` (index calls_test_created_idx): deleted with
   * their references, transcript, lead, recording and links (their foreign keys cascade). Never a live call.
   */
  @GenerateSql({ params: [SQL, DummyValue.DATE, 100] })
  deleteTestCallsBefore(db: Queryable, cutoff: Date, limit: number): Promise<number> {
    return db.execute(
      `DELETE FROM calls c WHERE NOT ${c.livemode} AND (${c.orgId}, ${c.callId}) IN (
         SELECT ${t.orgId}, ${t.callId} FROM calls t WHERE NOT ${t.livemode} AND ${t.createdAt} < $1 ORDER BY ${t.createdAt} LIMIT $2)`,
      [cutoff, limit],
    );
  }

  /** Insert or replace everything the pipeline owns; has_recording, created_at and the mode are kept. */
  @GenerateSql({ params: [SQL, DummyValue.UUID, { callId: DummyValue.TEXT, untrusted: null }, null, true] })
  async upsert(tx: Tx, orgId: string, call: IngestedCall, leadId: string | null, livemode: boolean): Promise<void> {
    await tx.execute(
      `INSERT INTO calls (${col.orgId}, ${col.callId}, ${col.startedAt}, ${col.durationS}, ${col.answered}, ${col.category}, ${col.urgency}, ${col.language}, ${col.outcome}, ${col.fromE164},
                          ${col.callbackNumber}, ${col.callbackExtension}, ${col.processingComplete}, ${col.configVersion}, ${col.leadId}, ${col.untrusted},
                          ${col.conversationSummary}, ${col.handling}, ${col.createdAt}, ${col.updatedAt}, ${col.livemode})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, clock_timestamp(), clock_timestamp(), $19)
       ON CONFLICT (${col.orgId}, ${col.callId}) DO UPDATE SET
         ${col.startedAt} = ${excluded.startedAt}, ${col.durationS} = ${excluded.durationS}, ${col.answered} = ${excluded.answered},
         ${col.category} = ${excluded.category}, ${col.urgency} = ${excluded.urgency}, ${col.language} = ${excluded.language}, ${col.outcome} = ${excluded.outcome},
         ${col.fromE164} = ${excluded.fromE164}, ${col.callbackNumber} = ${excluded.callbackNumber}, ${col.callbackExtension} = ${excluded.callbackExtension},
         ${col.processingComplete} = ${excluded.processingComplete}, ${col.configVersion} = ${excluded.configVersion}, ${col.leadId} = ${excluded.leadId},
         ${col.untrusted} = ${excluded.untrusted}, ${col.conversationSummary} = ${excluded.conversationSummary}, ${col.handling} = ${excluded.handling},
         ${col.updatedAt} = ${excluded.updatedAt}`,
      [
        orgId,
        call.callId,
        call.startedAt,
        call.durationS,
        call.answered,
        call.category,
        call.urgency,
        call.language,
        call.outcome,
        call.fromE164,
        call.callbackNumber,
        call.callbackExtension,
        call.processingComplete,
        call.configVersion,
        leadId,
        JSON.stringify(call.untrusted),
        call.conversationSummary === null ? null : JSON.stringify(call.conversationSummary),
        call.handling === null ? null : JSON.stringify(call.handling),
        livemode,
      ],
    );
  }

  /** The call's reference keys, replaced: one DELETE, one INSERT of every key (unnest), in the ingestion transaction. */
  @GenerateSql({ params: [SQL, DummyValue.UUID, DummyValue.TEXT, [{ key: DummyValue.TEXT }]] })
  async replaceReferences(tx: Tx, orgId: string, callId: string, references: Pick<CallReference, 'key'>[]): Promise<void> {
    await tx.execute(`DELETE FROM call_references WHERE ${ref.orgId} = $1 AND ${ref.callId} = $2`, [orgId, callId]);
    const keys = [...new Set(references.map((r) => r.key))];
    if (keys.length) {
      await tx.execute(
        `INSERT INTO call_references (${ref.orgId}, ${ref.key}, ${ref.callId}) SELECT $1, k, $2 FROM unnest($3::text[]) AS k`,
        [orgId, callId, keys],
      );
    }
  }

  async markCompletedEvent(tx: Tx, orgId: string, callId: string): Promise<void> {
    await tx.getRepository(CallEntity).update({ orgId, callId }, { completedEventAt: () => 'clock_timestamp()' });
  }

  /** Caller has run beginChange (the stamp is clock_timestamp(), see change-stamp.ts). */
  async setHasRecording(tx: Tx, orgId: string, callId: string, hasRecording: boolean): Promise<void> {
    await tx.getRepository(CallEntity).update({ orgId, callId }, { hasRecording, updatedAt: () => 'clock_timestamp()' });
  }
}
