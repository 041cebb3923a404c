import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity.js';

/**
 * A key's token bucket (`rate_limit_buckets`, UNLOGGED: a crash only refills it), shared by every api process;
 * each process leases tokens from it (rate-limit.repository.ts).
 */
@Entity('rate_limit_buckets')
export class RateLimitBucketEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'rate_limit_buckets_pkey' })
  @ForeignKey(() => ApiKeyEntity, { name: 'rate_limit_buckets_key_id_fkey', onDelete: 'CASCADE' })
  keyId: string;

  @Column('double precision')
  tokens: number;

  @Column('boolean')
  allowed: boolean;

  @Column('timestamptz')
  updatedAt: Date;

  /** How many tokens the last lease took. */
  @Column('integer', { default: 0 })
  granted: number;
}
