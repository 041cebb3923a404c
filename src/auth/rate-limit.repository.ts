import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { RateLimitBucketsRow } from './auth.tables.js';

/** What a lease took from the shared bucket, and what it left there. */
export interface BucketLease {
  granted: number;
  tokens: number;
}

/** The bucket refilled for the time since its last use, capped at the burst. */
const REFILL = `LEAST($3::float8, b.tokens + GREATEST(0, EXTRACT(EPOCH FROM $4::timestamptz - b.updated_at)) * $2::float8)`;
/** Whole tokens granted: as many as asked for ($5), at most the whole tokens there are. */
const GRANT = `LEAST($5::int, floor(${REFILL})::int)`;

@Injectable()
export class RateLimitRepository {
  constructor(private readonly sql: PoolSql) {}

  /**
   * One statement, atomic under concurrency across processes (the row lock of the
   * upsert): refill, then take up to `want` whole tokens for the calling process to
   * spend locally (rate-limit.service.ts). A new bucket starts full.
   */
  async lease(keyId: string, perSecond: number, burst: number, now: Date, want: number): Promise<BucketLease> {
    const rows = await this.sql.prepared<Pick<RateLimitBucketsRow, 'granted' | 'tokens'>>(
      'rate_limit_lease',
      `INSERT INTO rate_limit_buckets AS b (key_id, tokens, allowed, granted, updated_at)
       VALUES ($1, $3::float8 - LEAST($5::int, floor($3::float8)::int), true, LEAST($5::int, floor($3::float8)::int), $4)
       ON CONFLICT (key_id) DO UPDATE SET
         tokens = ${REFILL} - ${GRANT},
         allowed = ${GRANT} > 0,
         granted = ${GRANT},
         updated_at = GREATEST(b.updated_at, $4::timestamptz)
       RETURNING granted, tokens`,
      [keyId, perSecond, burst, now, want],
    );
    return { granted: rows[0].granted, tokens: Number(rows[0].tokens) };
  }
}
