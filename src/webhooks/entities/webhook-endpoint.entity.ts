import { Column, Entity, PrimaryColumn } from 'typeorm';

export type EndpointStatus = 'enabled' | 'disabled';
export type DisabledReason = 'owner' | 'failing' | 'gone';

@Entity('webhook_endpoints')
export class WebhookEndpointEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'org_id' }) orgId: string;
  @Column('text') url: string;
  @Column('text', { nullable: true }) description: string | null;
  @Column('text', { name: 'event_types', array: true }) eventTypes: string[];
  @Column('text') status: EndpointStatus;
  @Column('text', { name: 'disabled_reason', nullable: true }) disabledReason: DisabledReason | null;
  @Column('text', { name: 'secret_enc' }) secretEnc: string;
  @Column('text', { name: 'secret_last4' }) secretLast4: string;
  @Column('text', { name: 'previous_secret_enc', nullable: true }) previousSecretEnc: string | null;
  @Column('timestamptz', { name: 'previous_secret_expires_at', nullable: true }) previousSecretExpiresAt: Date | null;
  @Column('timestamptz', { name: 'last_success_at', nullable: true }) lastSuccessAt: Date | null;
  @Column('timestamptz', { name: 'last_failure_at', nullable: true }) lastFailureAt: Date | null;
  @Column('timestamptz', { name: 'failing_since', nullable: true }) failingSince: Date | null;
  @Column('timestamptz', { name: 'health_since' }) healthSince: Date;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt: Date;
}
