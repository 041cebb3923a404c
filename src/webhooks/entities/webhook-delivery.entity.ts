import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { DeliveryAttempt, DeliveryStatus, DeliveryTrigger } from '../webhook-model.js';
import { WebhookEndpointEntity } from './webhook-endpoint.entity.js';

/**
 * A delivery of an event to an endpoint (`webhook_deliveries`, the deliveries log), its attempts kept on the row.
 * Partitioned by UTC day on `createdAt`, which is therefore part of the primary key. While it is pending, its due
 * time and lease live in `webhook_pending_deliveries` (WebhookPendingDeliveryEntity) too; no index here covers a
 * column an attempt's result changes, and the day partitions have `fillfactor = 40`, so recording a result is a HOT
 * update. The list indexes sort `createdAt` and `id` descending (named here, defined by the migrations alone:
 * TypeORM has no column order, docs/decisions.md).
 */
@Entity('webhook_deliveries')
@Check('webhook_deliveries_trigger_check', `trigger IN ('event', 'test', 'redelivery')`)
@Check('webhook_deliveries_status_check', `status IN ('pending', 'succeeded', 'failed')`)
@Index('webhook_deliveries_org_idx', { synchronize: false })
@Index('webhook_deliveries_endpoint_idx', { synchronize: false })
@Index('webhook_deliveries_event_idx', { synchronize: false })
@Index('webhook_deliveries_manual_idx', ['endpointId', 'createdAt'], { where: `trigger <> 'event'` })
@Index('webhook_deliveries_created_idx', ['createdAt'], { type: 'brin' })
export class WebhookDeliveryEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'webhook_deliveries_pkey' })
  id: string;

  @Column('uuid')
  @ForeignKey('orgs', { name: 'webhook_deliveries_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column('uuid')
  @ForeignKey(() => WebhookEndpointEntity, { name: 'webhook_deliveries_endpoint_id_fkey', onDelete: 'CASCADE' })
  endpointId: string;

  @Column('text')
  eventId: string;

  @Column('text')
  eventType: string;

  @Column('text')
  trigger: DeliveryTrigger;

  @Column('text')
  status: DeliveryStatus;

  @Column('integer', { default: 0 })
  attemptCount: number;

  @Column('jsonb', { default: [] })
  attempts: DeliveryAttempt[];

  @Column('timestamptz', { nullable: true })
  nextAttemptAt: Date | null;

  @Column('timestamptz', { nullable: true })
  completedAt: Date | null;

  @PrimaryColumn('timestamptz', { primaryKeyConstraintName: 'webhook_deliveries_pkey' })
  createdAt: Date;

  /** The event's partition key (events.occurred_at), so its event is read from one partition; null on rows finished before it existed. */
  @Column('timestamptz', { nullable: true })
  eventOccurredAt: Date | null;
}
