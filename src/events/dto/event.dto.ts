import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { Problem } from '../../common/http/openapi.decorators.js';
import { NullableString } from '../../common/http/schema.decorators.js';
import { QueryEnum, QueryEventId, QueryIntRange, QueryPageSize } from '../../common/validation/decorators.js';
import { EVENT_TYPES } from '../event-catalogue.js';
import { EVENT_PAGE, EVENT_RETENTION_TEXT, MAX_EVENT_WAIT_S } from '../event-rules.js';

export class ListEventsQueryDto {
  @QueryEventId(
    'after',
    `Only events after this evt_ id: the last handled id, or next_after. Omitted: from the oldest kept event. An id older than ${EVENT_RETENTION_TEXT}, ` +
      `or of a shape the service never makes, answers 400 \`invalid_request\`; an id made within the ${EVENT_RETENTION_TEXT} that this log does not hold ` +
      "(lost in a database failover, or another firm's) answers 400 `after_lost` with `restart_after`, the event to resume after.",
  )
  after?: string;

  @QueryEnum('type', EVENT_TYPES, 'Only events of this type.')
  type?: (typeof EVENT_TYPES)[number];

  @QueryPageSize(EVENT_PAGE)
  limit?: number;

  @QueryIntRange(
    'wait',
    0,
    MAX_EVENT_WAIT_S,
    0,
    `Seconds to hold the request, 0 to ${MAX_EVENT_WAIT_S}, when no event after \`after\` (of \`type\`, if given) exists yet: it answers as soon as ` +
      'one commits (within about a second), or with an empty page when the seconds pass. Then ask again with the same `after` ' +
      '(or next_after). A way to follow the events without a public webhook endpoint. 0: answer at once.',
  )
  wait?: number;
}

@ApiSchema({ description: 'The firm an event belongs to.' })
export class EventOrgDto {
  @ApiProperty({ description: "The firm's stable id (as org.id of GET /v1/account).", example: '6b0e4f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b' })
  id: string;
}

/**
 * The envelope every event has. In the document this class's schema is the
 * base of one schema per event type, and EventDto is their union
 * (event-webhooks.openapi.ts), so `type` and `data` here are the members'
 * common shape only.
 */
@ApiSchema({ description: 'An event, exactly as listed by GET /v1/events and sent to webhook endpoints. `data` depends on `type`.' })
export class EventDto {
  @ApiProperty({ description: 'evt_ id; also the webhook-id header of its deliveries.', example: 'evt_01kqhxsvc0000100000003a7kqk7qz2m' })
  id: string;
  @ApiProperty({ description: 'What happened. New types may appear; ignore unknown ones.', example: 'call.completed' })
  type: string;
  @ApiProperty({ format: 'date-time', description: 'When it happened, ISO 8601 UTC.', example: '2026-05-01T14:06:40Z' }) timestamp: string;
  @ApiProperty({ type: EventOrgDto, description: 'The firm.' }) org: EventOrgDto;
  @ApiProperty({ description: 'True only for webhook.test; never treat a test as a real call.', example: false }) test: boolean;
  @ApiProperty({
    description:
      'True for live data; false for test-mode data (made with a test key, svc_test_), which only test keys read and only ' +
      'test-mode endpoints receive.',
    example: true,
  })
  livemode: boolean;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Shape depends on type; ignore unknown members and unknown types.',
    example: {},
  })
  data: Record<string, unknown>;
}

@ApiSchema({ description: 'One page of events, oldest first.' })
export class EventListDto {
  @ApiProperty({ type: [EventDto], description: 'The events of this page.' }) events: EventDto[];
  @ApiProperty({ description: 'When true, ask again with after = next_after.', example: false }) has_more: boolean;
  @NullableString('Id of the last event on this page; null when the page is empty.', 'evt_01kqhxsvc0000100000003a7kqk7qz2m') next_after:
    string | null;
}

/** 400 `after_lost` on GET /v1/events. */
@ApiSchema({
  description:
    '400 `after_lost`: `after` names an event this log no longer has (a database failover can lose the last events written before it), ' +
    `though the service made its id within the last ${EVENT_RETENTION_TEXT}. Resume after \`restart_after\` and skip the event ids already handled.`,
})
export class AfterLostProblem extends Problem {
  @NullableString(
    'The newest kept event before the lost one: ask again with after set to it (null: without after, from the oldest kept event). ' +
      'Every kept event the reader may not have had follows it.',
    'evt_01kqhxrjbg000100000003a7k6b4rx9t',
  )
  restart_after: string | null;
}
