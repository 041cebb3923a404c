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

  @Column({ type: 'uuid' })
  @ForeignKey('orgs', { name: 'console_sessions_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column({ type: 'boolean' })
  livemode: boolean;

  /** The link that opened it. */
  @Column({ type: 'uuid' })
  @ForeignKey(() => ConsoleLinkEntity, { name: 'console_sessions_link_id_fkey', onDelete: 'CASCADE' })
  linkId: string;

  @Column({ type: 'bytea' })
  sessionHash: Buffer;

  @Column({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz' })
  expiresAt: Date;

  /** Its link's: it sees everything and changes nothing. */
  @Column({ type: 'boolean' })
  readOnly: boolean;

  /** Its latest request, to the minute (written at most once a minute). */
  @Column({ type: 'timestamptz' })
  lastSeenAt: Date;
}
