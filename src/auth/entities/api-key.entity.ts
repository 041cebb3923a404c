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

  @Column('uuid', { name: 'org_id' })
  @ForeignKey('orgs', { name: 'api_keys_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column('text')
  name: string;

  @Column('text')
  prefix: string;

  @Column('text')
  last4: string;

  @Column('bytea', { name: 'key_hash' })
  keyHash: Buffer;

  @Column('text', { name: 'permission_set' })
  permissionSet: string;

  @Column('text', { array: true })
  scopes: string[];

  @Column('timestamptz', { name: 'expires_at', nullable: true })
  expiresAt: Date | null;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt: Date | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt: Date | null;

  /** true: a live key (svc_live_); false: a test key (svc_test_), which sees only test data. */
  @Column('boolean', { default: true })
  livemode: boolean;
}
