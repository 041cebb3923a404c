import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('orgs')
export class OrgEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') slug: string;
  @Column('text', { name: 'display_name', nullable: true }) displayName: string | null;
  @Column('text') status: string;
  @Column('text') timezone: string;
  @Column('text') vertical: string;
  @Column('text', { nullable: true }) plan: string | null;
  @Column('text', { name: 'billing_status', nullable: true }) billingStatus: string | null;
  @Column('timestamptz', { name: 'trial_ends_at', nullable: true }) trialEndsAt: Date | null;
  @Column('text', { nullable: true }) number: string | null;
  @Column('boolean', { name: 'payment_method_on_file' }) paymentMethodOnFile: boolean;
  @Column('text', { name: 'owner_email', nullable: true }) ownerEmail: string | null;
  @Column('timestamptz', { name: 'first_call_at', nullable: true }) firstCallAt: Date | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}
