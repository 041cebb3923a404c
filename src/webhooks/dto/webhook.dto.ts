import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { OpenEnum, OpenEnumList } from '../../common/http/schema.decorators.js';
import { UUID_PATTERN } from '../../common/ids.js';
import { QueryCursor, QueryEnum, QueryEventId, QueryPageSize, QueryPattern } from '../../common/validation/decorators.js';
import { EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '../../events/index.js';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../signing.js';
import { DELIVERY_PAGE } from '../webhook-rules.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const DELIVERY_TRIGGERS = ['event', 'test', 'redelivery'] as const;

@ApiSchema({ description: 'A webhook endpoint; added, changed and deleted in the dashboard.' })
export class WebhookEndpointDto {
  @ApiProperty({ format: 'uuid', description: 'The endpoint id.', example: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40' }) id: string;
  @ApiProperty({ description: 'Cannot be changed; use a new endpoint for a new URL.', example: 'https://hooks.example.com/receptionist' })
  url: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'Label.', example: 'CRM sync' }) description: string | null;
  @OpenEnumList(SUBSCRIBABLE_EVENT_TYPES, {
    description: 'The event types it receives. New event types may appear; ignore unknown ones.',
    example: ['call.completed', 'lead.created'],
  })
  event_types: string[];
  @ApiProperty({ enum: ['enabled', 'disabled'], description: 'A disabled endpoint is sent nothing.', example: 'enabled' }) status:
    'enabled' | 'disabled';
  @ApiProperty({
    enum: ['owner', 'failing', 'gone'],
    nullable: true,
    type: 'string',
    description: 'Why it is off: owner, failing or gone; null while enabled.',
    example: null,
  })
  disabled_reason: string | null;
  @ApiProperty({
    description:
      'Last 4 characters of the signing secret (`v1`); the secret itself is never returned. For `v1a`, the last 4 characters of `public_key`.',
    example: 'x7Q=',
  })
  secret_last4: string;
  @ApiProperty({
    enum: SIGNATURE_SCHEMES,
    description:
      "How deliveries are signed (Standard Webhooks): `v1` HMAC-SHA256 with the endpoint's `whsec_` secret (the default), or `v1a` ed25519, verified with `public_key`. During a rotation's overlap the replaced key signs too.",
    example: 'v1',
  })
  signature: SignatureScheme;
  @ApiProperty({
    type: 'string',
    nullable: true,
    pattern: '^whpk_[A-Za-z0-9+/]{43}=$',
    description:
      'For `v1a`: the ed25519 public key a receiver verifies `webhook-signature: v1a,...` with (`whpk_` + its 32 bytes, base64). Not a secret: the service keeps the private key. Null for `v1`.',
    example: null,
  })
  public_key: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Last delivery it answered with 2xx.',
    example: '2026-05-01T14:06:41Z',
  })
  last_success_at: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Last failed attempt.', example: null })
  last_failure_at: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Start of the current run of failed deliveries; null while succeeding.',
    example: null,
  })
  failing_since: string | null;
  @ApiProperty({ format: 'date-time', description: 'When it was added.', example: '2026-04-01T09:00:00Z' }) created_at: string;
  @ApiProperty({
    description:
      'True: receives live events only; false: a test-mode endpoint, which receives test events only and is seen only with a test key.',
    example: true,
  })
  livemode: boolean;
}

@ApiSchema({ description: "The firm's webhook endpoints." })
export class WebhookEndpointListDto {
  @ApiProperty({ type: [WebhookEndpointDto], description: 'Newest first.' }) endpoints: WebhookEndpointDto[];
}

@ApiSchema({ description: 'One attempt of a delivery.' })
export class WebhookDeliveryAttemptDto {
  @ApiProperty({ format: 'date-time', description: 'When it was sent.', example: '2026-05-01T14:06:40Z' }) at: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'HTTP status the endpoint answered; null when none.', example: 200 })
  status_code: number | null;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, description: 'How long the attempt took.', example: 184 }) duration_ms:
    number | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'For example timeout, refused connection, disallowed address, redirect not followed.',
    example: null,
  })
  error: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'First 500 characters of the answer.', example: 'ok' }) response_body:
    string | null;
}

@ApiSchema({ description: 'One delivery of an event to an endpoint, with its attempts.' })
export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid', description: 'The delivery id.', example: '6a1f0d2c-3b4e-4f5a-8c9d-0e1f2a3b4c5d' }) id: string;
  @ApiProperty({ format: 'uuid', description: 'The endpoint it goes to.', example: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40' })
  endpoint_id: string;
  @ApiProperty({ description: 'evt_ id of the event delivered.', example: 'evt_01kqhxsvc0000100000003a7kqk7qz2m' }) event_id: string;
  @OpenEnum(EVENT_TYPES, { description: 'Type of the event. New types may be added; ignore unknown ones.', example: 'call.completed' })
  event_type: string;
  @ApiProperty({ enum: DELIVERY_TRIGGERS, description: 'What created it: the event, a test, or a redelivery.', example: 'event' })
  trigger: string;
  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description:
      'pending until an attempt succeeds or none remain. An event produced while the endpoint was turned off gets a failed delivery with no attempts (nothing was sent); redeliver it once the endpoint is back on.',
    example: 'succeeded',
  })
  status: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Attempts made so far.', example: 1 }) attempt_count: number;
  @ApiProperty({ type: [WebhookDeliveryAttemptDto], description: 'Oldest first.' }) attempts: WebhookDeliveryAttemptDto[];
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Null once finished.', example: null }) next_attempt_at:
    string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Null while pending.', example: '2026-05-01T14:06:41Z' })
  completed_at: string | null;
  @ApiProperty({ format: 'date-time', description: 'When it was created.', example: '2026-05-01T14:06:40Z' }) created_at: string;
}

@ApiSchema({ description: 'One page of deliveries, newest first.' })
export class WebhookDeliveryListDto {
  @ApiProperty({ type: [WebhookDeliveryDto], description: 'Newest first.' }) deliveries: WebhookDeliveryDto[];
  @ApiProperty({ description: 'True when another page follows.', example: false }) has_more: boolean;
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as cursor, with the same filters, for the next page.', example: null })
  next_cursor: string | null;
}

@ApiSchema({ description: 'The delivery a test or redelivery created.' })
export class WebhookDeliveryAcceptedDto {
  @ApiProperty({ type: WebhookDeliveryDto, description: 'The new delivery, pending.' }) delivery: WebhookDeliveryDto;
}

export class ListDeliveriesQueryDto {
  @QueryPattern(
    'endpoint_id',
    UUID_PATTERN.source,
    'Only deliveries to this webhook endpoint (its uuid, any letter case).',
    'endpoint_id must be a webhook endpoint id (uuid)',
    'uuid',
  )
  endpoint_id?: string;

  @QueryEventId('event_id', 'evt_ id.')
  event_id?: string;

  @QueryEnum('status', DELIVERY_STATUSES, 'Only deliveries with this status.')
  status?: (typeof DELIVERY_STATUSES)[number];

  @QueryPageSize(DELIVERY_PAGE)
  limit?: number;

  @QueryCursor()
  cursor?: string;
}
