import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { RecordingEntity } from './recording.entity.js';

/**
 * A one-hour playback link (`recording_links`), stored only as the SHA-256 of its token. Removing the recording
 * or revoking the key that made it removes it (ON DELETE CASCADE).
 */
@Entity('recording_links')
@Unique('recording_links_token_hash_key', ['tokenHash'])
@Index('recording_links_org_expires_idx', ['orgId', 'expiresAt'])
@Index('recording_links_recording_idx', ['recordingId'])
export class RecordingLinkEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'recording_links_pkey' })
  id: string;

  @Column('uuid')
  @ForeignKey('orgs', { name: 'recording_links_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column('uuid')
  @ForeignKey(() => RecordingEntity, { name: 'recording_links_recording_id_fkey', onDelete: 'CASCADE' })
  recordingId: string;

  @Column('text')
  callId: string;

  @Column('bytea')
  tokenHash: Buffer;

  @Column('uuid')
  @ForeignKey('api_keys', { name: 'recording_links_created_by_key_id_fkey', onDelete: 'CASCADE' })
  createdByKeyId: string;

  @Column('timestamptz')
  createdAt: Date;

  @Column('timestamptz')
  expiresAt: Date;
}
