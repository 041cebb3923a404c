import { Column, Entity, PrimaryColumn } from 'typeorm';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliveryTrigger = 'event' | 'test' | 'redelivery';

/** One attempt, stored exactly as the API shows it (the spec's attempt item). */
export interface DeliveryAttempt {
  at: string;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response_body: string | null;
}

@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'org_id' }) orgId: string;
  @Column('uuid', { name: 'endpoint_id' }) endpointId: string;
  @Column('text', { name: 'event_id' }) eventId: string;
  @Column('text', { name: 'event_type' }) eventType: string;
  @Column('text') trigger: DeliveryTrigger;
  @Column('text') status: DeliveryStatus;
  @Column('integer', { name: 'attempt_count' }) attemptCount: number;
  @Column('jsonb') attempts: DeliveryAttempt[];
  @Column('timestamptz', { name: 'next_attempt_at', nullable: true }) nextAttemptAt: Date | null;
  @Column('timestamptz', { name: 'completed_at', nullable: true }) completedAt: Date | null;
  @Column('timestamptz', { name: 'locked_until', nullable: true }) lockedUntil: Date | null;
  @Column('uuid', { name: 'claim_token', nullable: true }) claimToken: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
}
