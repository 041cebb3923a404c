import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';

/** A firm's receptionist settings (`receptionist_settings`): the published document and a draft, one row per firm. */
@Entity('receptionist_settings')
export class ReceptionistSettingsEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'receptionist_settings_pkey' })
  @ForeignKey('orgs', { name: 'receptionist_settings_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column('jsonb', { nullable: true })
  published: object | null;

  @Column('integer', { default: 0 })
  version: number;

  @Column('timestamptz', { nullable: true })
  publishedAt: Date | null;

  @Column('jsonb', { nullable: true })
  draft: object | null;

  @Column('timestamptz', { nullable: true })
  draftUpdatedAt: Date | null;
}
