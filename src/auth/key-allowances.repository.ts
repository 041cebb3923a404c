import { Injectable } from '@nestjs/common';
import { DummyValue, GenerateSql } from '../database/generate-sql.js';
import { selectList } from '../database/select-list.js';
import { Database } from '../database/sql.js';
import { KeyAllowanceEntity } from './entities/key-allowance.entity.js';

/** What one take left: whether it got a token, and the tokens left in the bucket. */
export interface AllowanceTake {
  granted: boolean;
  tokens: number;
}

/** The bucket refilled for the time since its last take ($4 tokens a second), capped at its size ($3). */
const REFILL = `LEAST($3::float8, a.tokens + GREATEST(0, EXTRACT(EPOCH FROM $5::timestamptz - a.updated_at)) * $4::float8)`;

const TAKEN = selectList(KeyAllowanceEntity, 'a', ['granted', 'tokens']);

@Injectable()
export class KeyAllowancesRepository {
  constructor(private readonly db: Database) {}

  /**
   * One statement, atomic across processes (the upsert's row lock): the key's bucket of `allowance` refilled, then
   * one token taken when a whole one is there. A new bucket starts full.
   */
  @GenerateSql({ params: [DummyValue.UUID, 'test_calls', 100, 0.0277, DummyValue.DATE] })
  async take(keyId: string, allowance: string, size: number, perSecond: number, now: Date): Promise<AllowanceTake> {
    const [row] = await this.db.prepared(
      'key_allowance_take',
      TAKEN,
      `INSERT INTO key_allowances AS a (key_id, allowance, tokens, granted, updated_at)
       VALUES ($1, $2, $3::float8 - 1, true, $5)
       ON CONFLICT (key_id, allowance) DO UPDATE SET
         tokens = ${REFILL} - CASE WHEN ${REFILL} >= 1 THEN 1 ELSE 0 END,
         granted = ${REFILL} >= 1,
         updated_at = GREATEST(a.updated_at, $5::timestamptz)
       RETURNING ${TAKEN}`,
      [keyId, allowance, size, perSecond, now],
    );
    return { granted: row.granted, tokens: Number(row.tokens) };
  }
}
