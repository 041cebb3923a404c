import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('receptionist_settings')
export class ReceptionistSettingsEntity {
  @PrimaryColumn('uuid', { name: 'org_id' }) orgId: string;
  @Column('jsonb', { nullable: true }) published: Record<string, unknown> | null;
  @Column('integer') version: number;
  @Column('timestamptz', { name: 'published_at', nullable: true }) publishedAt: Date | null;
  @Column('jsonb', { nullable: true }) draft: Record<string, unknown> | null;
  @Column('timestamptz', { name: 'draft_updated_at', nullable: true }) draftUpdatedAt: Date | null;
}
