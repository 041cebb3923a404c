import { Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** A firm (`orgs`). Every other table belongs to one, by `org_id`. */
@Entity('orgs')
@Unique('orgs_slug_key', ['slug'])
export class OrgEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'orgs_pkey' })
  id: string;

  @Column('text')
  slug: string;

  @Column('text', { nullable: true })
  displayName: string | null;

  @Column('text', { default: 'onboarding' })
  status: string;

  @Column('text', { default: 'America/Chicago' })
  timezone: string;

  @Column('text', { default: 'law' })
  vertical: string;

  @Column('text', { nullable: true })
  plan: string | null;

  @Column('text', { nullable: true })
  billingStatus: string | null;

  @Column('timestamptz', { nullable: true })
  trialEndsAt: Date | null;

  @Column('text', { nullable: true })
  number: string | null;

  @Column('boolean', { default: false })
  paymentMethodOnFile: boolean;

  @Column('text', { nullable: true })
  ownerEmail: string | null;

  @Column('timestamptz', { nullable: true })
  firstCallAt: Date | null;

  @Column('timestamptz', { default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { default: () => 'now()' })
  updatedAt: Date;
}
