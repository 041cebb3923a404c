import { Query } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { Endpoint, keyed, pathParam } from '../common/http/access.decorators.js';
import { Problem, problemDescription, TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PathParam } from '../common/http/route-input.js';
import { AfterLostProblem, EventDto, EventListDto, ListEventsQueryDto } from './dto/event.dto.js';
import { AFTER_LOST_EXAMPLE } from './events.errors.js';
import { EVENT_PAGE, EVENT_RETENTION_TEXT } from './event-rules.js';
import { EventsService } from './events.service.js';
import { ClientGone } from './client-gone.js';
import { WaitingEventsList } from './waiting-events-list.js';

@TaggedController('Events', 'v1/events')
export class EventsController {
  constructor(
    private readonly events: EventsService,
    private readonly waiting: WaitingEventsList,
  ) {}

  @Endpoint({
    method: 'GET',
    access: keyed('webhooks:read'),
    query: ListEventsQueryDto,
    op: {
      id: 'listEvents',
      summary: 'List events, oldest first',
      description:
        `Every event recorded for the firm in the last ${EVENT_RETENTION_TEXT}, oldest first, exactly as sent to endpoints, whether or not an endpoint exists. While has_more is true, ask again with after set to next_after. An after naming an event older than ${EVENT_RETENTION_TEXT} answers 400.\n\n` +
        'A database failover can lose the last events written before it. An after naming such an event answers 400 `after_lost` with `restart_after`: ask again with after set to it (null: without after) and skip the event ids you already handled; nothing the log holds is then missed. The order of the log survives a failover: no event written after it sorts before one kept from before.',
    },
    ok: { type: EventListDto, description: 'One page of events.' },
    doc: [
      ApiExtraModels(Problem, AfterLostProblem),
      ApiResponse({
        status: 400,
        description:
          `${problemDescription(400)} Also \`invalid_request\`: an after older than ${EVENT_RETENTION_TEXT}, or of a shape the service never makes. ` +
          'Or `after_lost`: after names an event this log no longer has, and `restart_after` is the event to resume after.',
        content: {
          'application/problem+json': {
            schema: { anyOf: [{ $ref: getSchemaPath(Problem) }, { $ref: getSchemaPath(AfterLostProblem) }] },
            example: AFTER_LOST_EXAMPLE,
          },
        },
      }),
    ],
  })
  list(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Query() query: ListEventsQueryDto,
    @ClientGone() gone: AbortSignal,
  ): Promise<EventListDto> {
    const page = { after: query.after, type: query.type, limit: query.limit ?? EVENT_PAGE.default };
    return this.waiting.list(principal, page, query.wait ?? 0, gone);
  }

  @Endpoint({
    method: 'GET',
    path: ':event_id',
    etag: true,
    access: keyed('webhooks:read'),
    // An evt_ id keeps its documented 400 for a malformed value: the service checks it.
    params: {
      event_id: pathParam({
        description: 'The evt_ id (also the webhook-id header of its deliveries).',
        example: 'evt_01kqhxsvc0000100000003a7kqk7qz2m',
      }),
    },
    op: {
      id: 'getEvent',
      summary: 'Get one event',
      description: `One event, exactly as sent to endpoints. Events are kept ${EVENT_RETENTION_TEXT}.`,
    },
    ok: { type: EventDto, description: 'The event.' },
    problems: [400, 404],
    notFound: 'The event was not found.',
  })
  get(@CurrentPrincipal() principal: ApiPrincipal, @PathParam('event_id') eventId: string): Promise<EventDto> {
    return this.events.get(principal, eventId);
  }
}
