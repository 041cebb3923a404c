import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * An API key (`api_keys`): found by its 8-character prefix; `keyHash` is the SHA-256 of the whole key, which is
 * never stored. The firm's index sorts `createdAt` descending (named here, defined by the migrations alone: TypeORM
 * has no column order, docs/decisions.md).
 */
@Entity('api_keys')
@Unique('api_keys_prefix_key', ['prefix'])
@Index('api_keys_org_idx', { synchronize: false })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'api_keys_pkey' })
  id: string;

  @Column('uuid')
  @ForeignKey('orgs', { name: 'api_keys_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column('text')
  name: string;

  @Column('text')
  prefix: string;

  @Column('text')
  last4: string;

  @Column('bytea')
  keyHash: Buffer;

  @Column('text')
  permissionSet: string;

  @Column('text', { array: true })
  scopes: string[];

  @Column('timestamptz', { nullable: true })
  expiresAt: Date | null;

  @Column('timestamptz', { nullable: true })
  lastUsedAt: Date | null;

  @Column('timestamptz', { default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { nullable: true })
  revokedAt: Date | null;

  /** true: a live key (svc_live_); false: a test key (svc_test_), which sees only test data. */
  @Column('boolean', { default: true })
  livemode: boolean;
}
