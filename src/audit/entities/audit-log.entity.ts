import { Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An audit entry (`audit_log`), partitioned by UTC day on `at`, which is therefore part of the primary key. The
 * firm's index sorts `at` descending (named here, defined by the migrations alone: TypeORM has no column order, docs/decisions.md).
 */
@Entity('audit_log')
@Index('audit_log_org_at_idx', { synchronize: false })
export class AuditLogEntity {
  /** A bigint: node-postgres reads it as text. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'audit_log_pkey' })
  id: string;

  @Column('uuid')
  @ForeignKey('orgs', { name: 'audit_log_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @PrimaryColumn('timestamptz', { default: () => 'now()', primaryKeyConstraintName: 'audit_log_pkey' })
  at: Date;

  @Column('text')
  actorType: string;

  @Column('text', { nullable: true })
  actorId: string | null;

  @Column('text')
  action: string;

  @Column('text')
  resourceType: string;

  @Column('text', { array: true, default: [] })
  resourceIds: string[];

  @Column('jsonb', { nullable: true })
  details: Record<string, unknown> | null;
}
