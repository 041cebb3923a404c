import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { RateLimitBucketsRow } from './auth.tables.js';

export interface BucketState {
  allowed: boolean;
  tokens: number;
}

/** The bucket refilled for the time since its last use, capped at the burst. */
const REFILL = `LEAST($3::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM $4::timestamptz - b.updated_at)) * $2::float8)`;

@Injectable()
export class RateLimitRepository {
  constructor(private readonly sql: PoolSql) {}

  /**
   * One statement, atomic under concurrency across processes (the row lock of the
   * upsert): refill, then take one token if there is a whole one.
   */
  async take(keyId: string, perSecond: number, burst: number, now: Date): Promise<BucketState> {
    const rows = await this.sql.prepared<Pick<RateLimitBucketsRow, 'allowed' | 'tokens'>>(
      'rate_limit_take',
      `INSERT INTO rate_limit_buckets AS b (key_id, tokens, allowed, updated_at)
       VALUES ($1, $3::float8 - 1, true, $4)
       ON CONFLICT (key_id) DO UPDATE SET
         tokens = ${REFILL} - CASE WHEN ${REFILL} >= 1 THEN 1 ELSE 0 END,
         allowed = ${REFILL} >= 1,
         updated_at = GREATEST(b.updated_at, $4::timestamptz)
       RETURNING allowed, tokens`,
      [keyId, perSecond, burst, now],
    );
    return { allowed: rows[0].allowed, tokens: Number(rows[0].tokens) };
  }
}
