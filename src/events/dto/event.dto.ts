import { ApiProperty } from '@nestjs/swagger';
import { QueryEnum, QueryEventId, QueryIntRange } from '../../common/validation/decorators.js';
import { EVENT_TYPES } from '../event-types.js';

export class ListEventsQueryDto {
  @QueryEventId('after', 'Only events after this evt_ id: the last handled id, or next_after. Omitted: from the oldest kept event.')
  after?: string;

  @QueryEnum('type', EVENT_TYPES)
  type?: (typeof EVENT_TYPES)[number];

  @QueryIntRange('limit', 1, 100, 50, 'Page size, 1 to 100.')
  limit?: number;
}

export class EventOrgDto {
  @ApiProperty() id: string;
}

export class EventDto {
  @ApiProperty({ description: 'evt_ id; also the webhook-id header of its deliveries.', example: 'evt_01jd5x8m3q0000000000000000' })
  id: string;
  @ApiProperty({ enum: EVENT_TYPES, description: 'New types may appear; ignore unknown ones.' }) type: string;
  @ApiProperty({ format: 'date-time', description: 'When it happened, ISO 8601 UTC.' }) timestamp: string;
  @ApiProperty({ type: EventOrgDto }) org: EventOrgDto;
  @ApiProperty({ description: 'True only for webhook.test.' }) test: boolean;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Shape depends on type; ignore unknown members.' }) data: Record<
    string,
    unknown
  >;
}

export class EventListDto {
  @ApiProperty({ type: [EventDto] }) events: EventDto[];
  @ApiProperty({ description: 'When true, ask again with after = next_after.' }) has_more: boolean;
  @ApiProperty({ type: 'string', nullable: true, description: 'Id of the last event on this page; null when the page is empty.' })
  next_after: string | null;
}
