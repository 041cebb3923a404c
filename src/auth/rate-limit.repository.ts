import { Injectable } from '@nestjs/common';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql } from '../database/generate-sql.js';
import { selectList } from '../database/select-list.js';
import { Database } from '../database/sql.js';
import { RateLimitBucketEntity } from './entities/rate-limit-bucket.entity.js';

/** What a lease took from the shared bucket, and what it left there. */
export interface BucketLease {
  granted: number;
  tokens: number;
}

/** Column names: under the statement's alias, and alone (the INSERT's, the SET's). */
const [b, col] = [columns(RateLimitBucketEntity, 'b'), columns(RateLimitBucketEntity)];

/** The bucket refilled for the time since its last use, capped at the burst. */
const REFILL = `LEAST($3::float8, ${b.tokens} + GREATEST(0, EXTRACT(EPOCH FROM $4::timestamptz - ${b.updatedAt})) * $2::float8)`;
/** Whole tokens granted: as many as asked for ($5), at most the whole tokens there are. */
const GRANT = `LEAST($5::int, floor(${REFILL})::int)`;

const LEASED = selectList(RateLimitBucketEntity, 'b', ['granted', 'tokens']);

@Injectable()
export class RateLimitRepository {
  constructor(private readonly db: Database) {}

  /**
   * One statement, atomic under concurrency across processes (the row lock of the
   * upsert): refill, then take up to `want` whole tokens for the calling process to
   * spend locally (rate-limit.service.ts). A new bucket starts full.
   */
  @GenerateSql({ params: [DummyValue.UUID, 10, 20, DummyValue.DATE, 1] })
  async lease(keyId: string, perSecond: number, burst: number, now: Date, want: number): Promise<BucketLease> {
    const rows = await this.db.prepared(
      'rate_limit_lease',
      LEASED,
      `INSERT INTO rate_limit_buckets AS b (${col.keyId}, ${col.tokens}, ${col.allowed}, ${col.granted}, ${col.updatedAt})
       VALUES ($1, $3::float8 - LEAST($5::int, floor($3::float8)::int), true, LEAST($5::int, floor($3::float8)::int), $4)
       ON CONFLICT (${col.keyId}) DO UPDATE SET
         ${col.tokens} = ${REFILL} - ${GRANT},
         ${col.allowed} = ${GRANT} > 0,
         ${col.granted} = ${GRANT},
         ${col.updatedAt} = GREATEST(${b.updatedAt}, $4::timestamptz)
       RETURNING ${LEASED}`,
      [keyId, perSecond, burst, now, want],
    );
    return { granted: rows[0].granted, tokens: Number(rows[0].tokens) };
  }
}
