import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('audit_log')
export class AuditEntryEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id: string;
  @Column('uuid', { name: 'org_id' }) orgId: string;
  @Column('timestamptz', { default: () => 'now()' }) at: Date;
  @Column('text', { name: 'actor_type' }) actorType: string;
  @Column('text', { name: 'actor_id', nullable: true }) actorId: string | null;
  @Column('text') action: string;
  @Column('text', { name: 'resource_type' }) resourceType: string;
  @Column('text', { name: 'resource_ids', array: true }) resourceIds: string[];
  @Column('jsonb', { nullable: true }) details: Record<string, any> | null;
}
