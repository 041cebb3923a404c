import { Column, Entity, ForeignKey, Index, PrimaryColumn, Unique } from 'typeorm';
import { ConsoleLinkEntity } from './console-link.entity.js';

/** `console_sessions`: a browser signed in to the console for one firm and mode; only the SHA-256 of its id is kept. */
@Entity('console_sessions')
@Unique('console_sessions_session_hash_key', ['sessionHash'])
@Index('console_sessions_link_idx', ['linkId'])
@Index('console_sessions_org_expires_idx', ['orgId', 'expiresAt'])
export class ConsoleSessionEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'console_sessions_pkey' })
  id: string;

  @Column({ name: 'org_id', type: 'uuid' })
  @ForeignKey('orgs', { name: 'console_sessions_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column({ type: 'boolean' })
  livemode: boolean;

  /** The link that opened it. */
  @Column({ name: 'link_id', type: 'uuid' })
  @ForeignKey(() => ConsoleLinkEntity, { name: 'console_sessions_link_id_fkey', onDelete: 'CASCADE' })
  linkId: string;

  @Column({ name: 'session_hash', type: 'bytea' })
  sessionHash: Buffer;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** Its link's: it sees everything and changes nothing. */
  @Column({ name: 'read_only', type: 'boolean' })
  readOnly: boolean;

  /** Its latest request, to the minute (written at most once a minute). */
  @Column({ name: 'last_seen_at', type: 'timestamptz' })
  lastSeenAt: Date;
}
