import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID } from 'class-validator';
import { QueryEnum, QueryEventId, QueryIntRange } from '../../common/validation/decorators.js';
import { EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '../../events/index.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const DELIVERY_TRIGGERS = ['event', 'test', 'redelivery'] as const;

export class WebhookEndpointDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Cannot be changed; use a new endpoint for a new URL.' }) url: string;
  @ApiProperty({ type: 'string', nullable: true, description: 'Label.' }) description: string | null;
  @ApiProperty({ enum: SUBSCRIBABLE_EVENT_TYPES, isArray: true }) event_types: string[];
  @ApiProperty({ enum: ['enabled', 'disabled'] }) status: 'enabled' | 'disabled';
  @ApiProperty({ enum: ['owner', 'failing', 'gone'], nullable: true, type: 'string', description: 'Null while enabled.' }) disabled_reason:
    string | null;
  @ApiProperty({ description: 'Last 4 characters of the signing secret; the secret itself is never returned.' }) secret_last4: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) last_success_at: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) last_failure_at: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Start of the current run of failed deliveries; null while succeeding.',
  })
  failing_since: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class WebhookEndpointListDto {
  @ApiProperty({ type: [WebhookEndpointDto], description: 'Newest first.' }) endpoints: WebhookEndpointDto[];
}

export class WebhookDeliveryAttemptDto {
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ type: 'integer', nullable: true }) status_code: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) duration_ms: number | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'For example timeout, refused connection, disallowed address, redirect not followed.',
  })
  error: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'First 500 characters of the answer.' }) response_body: string | null;
}

export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) endpoint_id: string;
  @ApiProperty({ description: 'evt_ id.' }) event_id: string;
  @ApiProperty({ enum: EVENT_TYPES, description: 'New types may be added; ignore unknown ones.' }) event_type: string;
  @ApiProperty({ enum: DELIVERY_TRIGGERS }) trigger: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: string;
  @ApiProperty({ type: 'integer' }) attempt_count: number;
  @ApiProperty({ type: [WebhookDeliveryAttemptDto], description: 'Oldest first.' }) attempts: WebhookDeliveryAttemptDto[];
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Null once finished.' }) next_attempt_at: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Null while pending.' }) completed_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class WebhookDeliveryListDto {
  @ApiProperty({ type: [WebhookDeliveryDto], description: 'Newest first.' }) deliveries: WebhookDeliveryDto[];
  @ApiProperty() has_more: boolean;
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as cursor, with the same filters, for the next page.' }) next_cursor:
    string | null;
}

export class WebhookDeliveryAcceptedDto {
  @ApiProperty({ type: WebhookDeliveryDto, description: 'The new delivery, pending.' }) delivery: WebhookDeliveryDto;
}

export class ListDeliveriesQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'endpoint_id must be a webhook endpoint id (uuid)' })
  endpoint_id?: string;

  @QueryEventId('event_id', 'evt_ id.')
  event_id?: string;

  @QueryEnum('status', DELIVERY_STATUSES)
  status?: (typeof DELIVERY_STATUSES)[number];

  @QueryIntRange('limit', 1, 100, 20, 'Page size, 1 to 100.')
  limit?: number;

  @ApiPropertyOptional({ description: 'next_cursor from the previous page, with the same filters.' })
  @IsOptional()
  @IsString({ message: 'cursor must be a string' })
  cursor?: string;
}
