import { Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** A firm (`orgs`). Every other table belongs to one, by `org_id`. */
@Entity('orgs')
@Unique('orgs_slug_key', ['slug'])
export class OrgEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'orgs_pkey' })
  id: string;

  @Column('text')
  slug: string;

  @Column('text', { name: 'display_name', nullable: true })
  displayName: string | null;

  @Column('text', { default: 'onboarding' })
  status: string;

  @Column('text', { default: 'America/Chicago' })
  timezone: string;

  @Column('text', { default: 'law' })
  vertical: string;

  @Column('text', { nullable: true })
  plan: string | null;

  @Column('text', { name: 'billing_status', nullable: true })
  billingStatus: string | null;

  @Column('timestamptz', { name: 'trial_ends_at', nullable: true })
  trialEndsAt: Date | null;

  @Column('text', { nullable: true })
  number: string | null;

  @Column('boolean', { name: 'payment_method_on_file', default: false })
  paymentMethodOnFile: boolean;

  @Column('text', { name: 'owner_email', nullable: true })
  ownerEmail: string | null;

  @Column('timestamptz', { name: 'first_call_at', nullable: true })
  firstCallAt: Date | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}
