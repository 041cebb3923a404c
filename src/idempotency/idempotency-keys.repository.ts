import { Injectable } from '@nestjs/common';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql } from '../database/generate-sql.js';
import { selectList, type RowOf } from '../database/select-list.js';
import { Database } from '../database/sql.js';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity.js';

const CLAIM = selectList(IdempotencyKeyEntity, null, ['claimToken']);
/** A key already held: what its first request was, and its answer once it has one. */
const HELD = selectList(IdempotencyKeyEntity, 'k', ['requestHash', 'statusCode', 'answer']);
export type HeldKey = RowOf<typeof HELD>;

/** Column names: under the statements' aliases, alone (an INSERT's, a SET's), and as an upsert offered them. */
const [k, o, col, excluded] = [
  columns(IdempotencyKeyEntity, 'k'),
  columns(IdempotencyKeyEntity, 'o'),
  columns(IdempotencyKeyEntity),
  columns(IdempotencyKeyEntity, 'EXCLUDED'),
];

/** Which key of which API key: the row's primary key. */
export interface KeyRef {
  keyId: string;
  idempotencyKey: string;
}

const REF: KeyRef = { keyId: DummyValue.UUID, idempotencyKey: DummyValue.TEXT };

/**
 * `idempotency_keys`, written out: one statement takes a key (a new row, or one that may be taken over), atomic
 * across processes through the primary key; the others read a held one, store an answer or let a key go, each only
 * where the caller's claim still holds.
 */
@Injectable()
export class IdempotencyKeysRepository {
  constructor(private readonly db: Database) {}

  /**
   * Takes the key for this request: inserts it, or takes over a row made before `forgottenBefore` (kept 24 hours)
   * or whose first request stopped without an answer (its lease ran out) when that was this same request. Returns
   * the claim's token, or null when the key is held (read it with `held`). The lease is in database time.
   */
  @GenerateSql({ params: [REF, 'a1b2', DummyValue.DATE, DummyValue.DATE, 60] })
  async claim(ref: KeyRef, requestHash: string, now: Date, forgottenBefore: Date, leaseSeconds: number): Promise<string | null> {
    const [row] = await this.db.query(
      CLAIM,
      `INSERT INTO idempotency_keys AS k (${col.keyId}, ${col.idempotencyKey}, ${col.requestHash}, ${col.createdAt}, ${col.lockedUntil}, ${col.claimToken})
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $6), gen_random_uuid())
       ON CONFLICT (${col.keyId}, ${col.idempotencyKey}) DO UPDATE
          SET ${col.requestHash} = ${excluded.requestHash}, ${col.createdAt} = ${excluded.createdAt}, ${col.lockedUntil} = ${excluded.lockedUntil},
              ${col.claimToken} = ${excluded.claimToken}, ${col.statusCode} = NULL, ${col.answer} = NULL
        WHERE ${k.createdAt} < $5
           OR (${k.statusCode} IS NULL AND ${k.lockedUntil} < now() AND ${k.requestHash} = ${excluded.requestHash})
       RETURNING ${CLAIM}`,
      [ref.keyId, ref.idempotencyKey, requestHash, now, forgottenBefore, leaseSeconds],
    );
    return row?.claimToken ?? null;
  }

  /** The key as held now, or null when it is gone (its first request let it go meanwhile). */
  @GenerateSql({ params: [REF] })
  async held(ref: KeyRef): Promise<HeldKey | null> {
    const [row] = await this.db.query(HELD, `SELECT ${HELD} FROM idempotency_keys k WHERE ${k.keyId} = $1 AND ${k.idempotencyKey} = $2`, [
      ref.keyId,
      ref.idempotencyKey,
    ]);
    return row ?? null;
  }

  /** The first request's answer, stored where its claim still holds; whether it was. */
  @GenerateSql({ params: [REF, DummyValue.UUID, 202, 'v1.sealed'] })
  async store(ref: KeyRef, claimToken: string, statusCode: number, answer: string): Promise<boolean> {
    const n = await this.db.execute(
      `UPDATE idempotency_keys SET ${col.statusCode} = $4, ${col.answer} = $5, ${col.lockedUntil} = NULL, ${col.claimToken} = NULL
        WHERE ${col.keyId} = $1 AND ${col.idempotencyKey} = $2 AND ${col.claimToken} = $3`,
      [ref.keyId, ref.idempotencyKey, claimToken, statusCode, answer],
    );
    return n === 1;
  }

  /** Lets the key go (an answer that stores nothing): the same key may be sent again at once. */
  @GenerateSql({ params: [REF, DummyValue.UUID] })
  async release(ref: KeyRef, claimToken: string): Promise<void> {
    await this.db.execute(
      `DELETE FROM idempotency_keys WHERE ${col.keyId} = $1 AND ${col.idempotencyKey} = $2 AND ${col.claimToken} = $3`,
      [ref.keyId, ref.idempotencyKey, claimToken],
    );
  }

  /** At most `limit` keys first used before `cutoff`, oldest first (the retention job's batches); how many. */
  @GenerateSql({ params: [DummyValue.DATE, 1000] })
  deleteBefore(cutoff: Date, limit: number): Promise<number> {
    return this.db.execute(
      `DELETE FROM idempotency_keys k WHERE (${k.keyId}, ${k.idempotencyKey}) IN (
         SELECT ${o.keyId}, ${o.idempotencyKey} FROM idempotency_keys o WHERE ${o.createdAt} < $1 ORDER BY ${o.createdAt} LIMIT $2)`,
      [cutoff, limit],
    );
  }
}
