import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A call's recording: metadata only; the audio is in the RecordingStore under storageKey. */
@Entity('recordings')
export class RecordingEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'org_id' }) orgId: string;
  @Column('text', { name: 'call_id' }) callId: string;
  @Column('text', { name: 'storage_key' }) storageKey: string;
  @Column('bigint', { name: 'size_bytes' }) sizeBytes: string;
  @Column('bytea') sha256: Buffer;
  @Column('text', { name: 'content_type' }) contentType: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt: Date;
}
