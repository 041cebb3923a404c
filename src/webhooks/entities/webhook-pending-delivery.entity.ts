import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { DeliveryTrigger } from '../webhook-model.js';
import { WebhookEndpointEntity } from './webhook-endpoint.entity.js';

/**
 * A delivery still to be sent (`webhook_pending_deliveries`): the dispatcher's queue, beside the deliveries log
 * (`webhook_deliveries`, WebhookDeliveryEntity), which holds every delivery and what the API shows of it. A row is
 * made with its delivery when that is pending, leased by a claim, moved on by a retry and deleted when the delivery
 * is settled, in the transaction that writes the log's row. Narrow on purpose: one small heap and one index (the due
 * time), neither partitioned, so a claim and its result touch no index of the log (docs/decisions.md, "Dispatch").
 * What a claim needs to send is here, so it never reads the log.
 */
@Entity('webhook_pending_deliveries')
@Check('webhook_pending_deliveries_trigger_check', `trigger IN ('event', 'test', 'redelivery')`)
@Check('webhook_pending_deliveries_lease_check', '(claim_token IS NULL) = (locked_until IS NULL)')
@Index('webhook_pending_deliveries_due_idx', ['nextAttemptAt'])
export class WebhookPendingDeliveryEntity {
  /** The delivery's id (webhook_deliveries.id). */
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'webhook_pending_deliveries_pkey' })
  id: string;

  /** The delivery's partition key in the log (webhook_deliveries.created_at), so its row there is written in its day alone. */
  @Column('timestamptz')
  createdAt: Date;

  @Column('uuid')
  orgId: string;

  @Column('uuid')
  @ForeignKey(() => WebhookEndpointEntity, { name: 'webhook_pending_deliveries_endpoint_id_fkey', onDelete: 'CASCADE' })
  endpointId: string;

  @Column('text')
  eventId: string;

  @Column('text')
  eventType: string;

  /** The event's partition key (events.occurred_at); null on deliveries made before deliveries kept it. */
  @Column('timestamptz', { nullable: true })
  eventOccurredAt: Date | null;

  @Column('text')
  trigger: DeliveryTrigger;

  @Column('integer', { default: 0 })
  attemptCount: number;

  @Column('timestamptz')
  nextAttemptAt: Date;

  /** The lease of the worker sending it (database time), and which claim holds it: not indexed, so a claim is a HOT update. */
  @Column('timestamptz', { nullable: true })
  lockedUntil: Date | null;

  @Column('uuid', { nullable: true })
  claimToken: string | null;
}
