import { Column, Entity, ForeignKey, Index, PrimaryColumn, Unique } from 'typeorm';

/** `console_links`: a one-time sign-in link of the console; only the SHA-256 of its token is kept. */
@Entity('console_links')
@Unique('console_links_token_hash_key', ['tokenHash'])
@Index('console_links_org_expires_idx', ['orgId', 'expiresAt'])
export class ConsoleLinkEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'console_links_pkey' })
  id: string;

  @Column({ type: 'uuid' })
  @ForeignKey('orgs', { name: 'console_links_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column({ type: 'boolean' })
  livemode: boolean;

  @Column({ type: 'bytea' })
  tokenHash: Buffer;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  /** The session it opens sees everything and changes nothing (`console link --read-only`). */
  @Column({ type: 'boolean' })
  readOnly: boolean;

  /** When the link opened a session; a used link never opens another. */
  @Column({ type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}
