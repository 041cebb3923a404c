import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A one-hour playback link. Only the SHA-256 of its token is stored; the token itself never is. */
@Entity('recording_links')
export class RecordingLinkEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'org_id' }) orgId: string;
  @Column('uuid', { name: 'recording_id' }) recordingId: string;
  @Column('text', { name: 'call_id' }) callId: string;
  @Column('bytea', { name: 'token_hash' }) tokenHash: Buffer;
  @Column('uuid', { name: 'created_by_key_id' }) createdByKeyId: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
}
