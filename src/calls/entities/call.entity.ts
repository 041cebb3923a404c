import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('calls')
export class CallEntity {
  @PrimaryColumn('uuid', { name: 'org_id' }) orgId: string;
  @PrimaryColumn('text', { name: 'call_id' }) callId: string;
  @Column('timestamptz', { name: 'started_at', nullable: true }) startedAt: Date | null;
  @Column('boolean', { name: 'has_recording' }) hasRecording: boolean;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}
