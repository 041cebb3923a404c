import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { ApiKeyEntity } from './api-key.entity.js';

/**
 * What a key may still do of one allowance counted over time (`key_allowances`): a token bucket per key and allowance
 * (the test helpers' `test_calls`), shared by every api process and taken one token at a time
 * (key-allowances.repository.ts).
 */
@Entity('key_allowances')
export class KeyAllowanceEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'key_allowances_pkey' })
  @ForeignKey(() => ApiKeyEntity, { name: 'key_allowances_key_id_fkey', onDelete: 'CASCADE' })
  keyId: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'key_allowances_pkey' })
  allowance: string;

  /** What was left at `updatedAt`, the last take (it refills from there). */
  @Column('double precision')
  tokens: number;

  @Column('timestamptz')
  updatedAt: Date;
}
