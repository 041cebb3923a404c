import { Injectable } from '@nestjs/common';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql } from '../database/generate-sql.js';
import { computed, selectList } from '../database/select-list.js';
import { Database } from '../database/sql.js';
import { KeyAllowanceEntity } from './entities/key-allowance.entity.js';

/** Column names: under the statements' alias, and alone (the INSERT's, the SET's). */
const [a, col] = [columns(KeyAllowanceEntity, 'a'), columns(KeyAllowanceEntity)];

/** The bucket refilled for the time since its last take ($4 tokens a second), capped at its size ($3). */
const REFILL = `LEAST($3::float8, ${a.tokens} + GREATEST(0, EXTRACT(EPOCH FROM $5::timestamptz - ${a.updatedAt})) * $4::float8)`;

const LEFT = selectList(KeyAllowanceEntity, 'a', ['tokens']);
const REFILLED = computed<{ tokens: number }>(`${REFILL} AS tokens`);

@Injectable()
export class KeyAllowancesRepository {
  constructor(private readonly db: Database) {}

  /**
   * One statement, atomic across processes (the upsert's row lock): one token of the key's bucket of `allowance`, if
   * a whole one is there once refilled; the tokens left, or null when refused, which changes nothing. A new bucket
   * starts full.
   */
  @GenerateSql({ params: [DummyValue.UUID, 'test_calls', 100, 0.0277, DummyValue.DATE] })
  async take(keyId: string, allowance: string, size: number, perSecond: number, now: Date): Promise<number | null> {
    const [row] = await this.db.prepared(
      'key_allowance_take',
      LEFT,
      `INSERT INTO key_allowances AS a (${col.keyId}, ${col.allowance}, ${col.tokens}, ${col.updatedAt}) VALUES ($1, $2, $3::float8 - 1, $5)
       ON CONFLICT (${col.keyId}, ${col.allowance}) DO UPDATE SET ${col.tokens} = ${REFILL} - 1, ${col.updatedAt} = GREATEST(${a.updatedAt}, $5::timestamptz)
       WHERE ${REFILL} >= 1
       RETURNING ${LEFT}`,
      [keyId, allowance, size, perSecond, now],
    );
    return row ? Number(row.tokens) : null;
  }

  /** The tokens in the key's bucket now, refilled (what a refused take found). */
  @GenerateSql({ params: [DummyValue.UUID, 'test_calls', 100, 0.0277, DummyValue.DATE] })
  async level(keyId: string, allowance: string, size: number, perSecond: number, now: Date): Promise<number> {
    const [row] = await this.db.prepared(
      'key_allowance_level',
      REFILLED,
      `SELECT ${REFILLED} FROM key_allowances a WHERE ${a.keyId} = $1 AND ${a.allowance} = $2`,
      [keyId, allowance, size, perSecond, now],
    );
    return row ? Number(row.tokens) : size;
  }
}
