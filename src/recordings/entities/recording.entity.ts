import { Check, Column, Entity, ForeignKey, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * A call's recording (`recordings`, one per call): where the audio is in the recording store, its size and
 * SHA-256. `storageKey` is fresh for every upload, so a replaced object is never overwritten while it streams.
 */
@Entity('recordings')
@ForeignKey('calls', ['orgId', 'callId'], ['org_id', 'call_id'], { name: 'recordings_org_id_call_id_fkey', onDelete: 'CASCADE' })
@Unique('recordings_storage_key_key', ['storageKey'])
@Unique('recordings_org_id_call_id_key', ['orgId', 'callId'])
@Check('recordings_size_bytes_check', 'size_bytes > 0')
export class RecordingEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'recordings_pkey' })
  id: string;

  @Column('uuid')
  orgId: string;

  @Column('text')
  callId: string;

  @Column('text')
  storageKey: string;

  /** A bigint: node-postgres reads it as text. */
  @Column('bigint')
  sizeBytes: string;

  @Column('bytea')
  sha256: Buffer;

  @Column('text', { default: 'audio/ogg' })
  contentType: string;

  @Column('timestamptz', { default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { default: () => 'now()' })
  updatedAt: Date;
}
