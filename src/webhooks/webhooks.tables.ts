import { defineTable, type Camelized } from '../database/tables.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export type DeliveryTrigger = 'event' | 'test' | 'redelivery';
export type EndpointStatus = 'enabled' | 'disabled';
export type DisabledReason = 'owner' | 'failing' | 'gone';

/** One attempt, stored exactly as the API shows it (the spec's attempt item). */
export interface DeliveryAttempt {
  at: string;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response_body: string | null;
}

/** A row of `webhook_deliveries`, as node-postgres returns it. */
export interface WebhookDeliveriesRow {
  id: string;
  org_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  trigger: DeliveryTrigger;
  status: DeliveryStatus;
  attempt_count: number;
  attempts: DeliveryAttempt[];
  next_attempt_at: Date | null;
  completed_at: Date | null;
  locked_until: Date | null;
  claim_token: string | null;
  created_at: Date;
  /** The event's partition key (events.occurred_at), so its event is read from one partition; null on rows finished before it existed. */
  event_occurred_at: Date | null;
}

export const WEBHOOK_DELIVERIES_TABLE = defineTable<WebhookDeliveriesRow>('webhook_deliveries', {
  id: 'uuid',
  org_id: 'uuid',
  endpoint_id: 'uuid',
  event_id: 'text',
  event_type: 'text',
  trigger: 'text',
  status: 'text',
  attempt_count: 'integer',
  attempts: 'jsonb',
  next_attempt_at: 'timestamp with time zone null',
  completed_at: 'timestamp with time zone null',
  locked_until: 'timestamp with time zone null',
  claim_token: 'uuid null',
  created_at: 'timestamp with time zone',
  event_occurred_at: 'timestamp with time zone null',
});

/** A row of `webhook_endpoints`, as node-postgres returns it. */
export interface WebhookEndpointsRow {
  id: string;
  org_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  status: EndpointStatus;
  disabled_reason: DisabledReason | null;
  secret_enc: string;
  secret_last4: string;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  failing_since: Date | null;
  health_since: Date;
  created_at: Date;
  updated_at: Date;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  /** false: a test-mode endpoint, which receives test events only (live ones receive live events only). */
  livemode: boolean;
}

export const WEBHOOK_ENDPOINTS_TABLE = defineTable<WebhookEndpointsRow>('webhook_endpoints', {
  id: 'uuid',
  org_id: 'uuid',
  url: 'text',
  description: 'text null',
  event_types: 'text[]',
  status: 'text',
  disabled_reason: 'text null',
  secret_enc: 'text',
  secret_last4: 'text',
  last_success_at: 'timestamp with time zone null',
  last_failure_at: 'timestamp with time zone null',
  failing_since: 'timestamp with time zone null',
  health_since: 'timestamp with time zone',
  created_at: 'timestamp with time zone',
  updated_at: 'timestamp with time zone',
  previous_secret_enc: 'text null',
  previous_secret_expires_at: 'timestamp with time zone null',
  livemode: 'boolean',
});

/** An endpoint as the context holds it (every column, aliased to camelCase). */
export type EndpointRow = Camelized<WebhookEndpointsRow>;
