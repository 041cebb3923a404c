import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'org_id' }) orgId: string;
  @Column('text') name: string;
  @Column('text') prefix: string;
  @Column('text') last4: string;
  /** SHA-256 of the whole key; the key itself is never stored. */
  @Column('bytea', { name: 'key_hash' }) keyHash: Buffer;
  @Column('text', { name: 'permission_set' }) permissionSet: string;
  @Column('text', { array: true }) scopes: string[];
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt: Date | null;
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
}
