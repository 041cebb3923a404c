import { Column, Entity, ForeignKey, Index, PrimaryColumn, Unique } from 'typeorm';

/** `console_links`: a one-time sign-in link of the console; only the SHA-256 of its token is kept. */
@Entity('console_links')
@Unique('console_links_token_hash_key', ['tokenHash'])
@Index('console_links_org_expires_idx', ['orgId', 'expiresAt'])
export class ConsoleLinkEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'console_links_pkey' })
  id: string;

  @Column({ name: 'org_id', type: 'uuid' })
  @ForeignKey('orgs', { name: 'console_links_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column({ type: 'boolean' })
  livemode: boolean;

  @Column({ name: 'token_hash', type: 'bytea' })
  tokenHash: Buffer;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** The session it opens sees everything and changes nothing (`console link --read-only`). */
  @Column({ name: 'read_only', type: 'boolean' })
  readOnly: boolean;

  /** When the link opened a session; a used link never opens another. */
  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}
