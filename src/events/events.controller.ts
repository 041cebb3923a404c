import { Query } from '@nestjs/common';
import { Endpoint, keyed, pathParam } from '../common/http/access.decorators.js';
import { TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PathParam } from '../common/http/route-input.js';
import { EventDto, EventListDto, ListEventsQueryDto } from './dto/event.dto.js';
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
        'Every event recorded for the firm in the last 30 days, oldest first, exactly as sent to endpoints, whether or not an endpoint exists. While has_more is true, ask again with after set to next_after. An after naming an event older than 30 days answers 400.',
    },
    ok: { type: EventListDto, description: 'One page of events.' },
    problems: [400],
  })
  list(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Query() query: ListEventsQueryDto,
    @ClientGone() gone: AbortSignal,
  ): Promise<EventListDto> {
    const page = { after: query.after, type: query.type, limit: query.limit ?? 50 };
    return this.waiting.list(principal, page, query.wait ?? 0, gone);
  }

  @Endpoint({
    method: 'GET',
    path: ':event_id',
    etag: true,
    access: keyed('webhooks:read'),
    // An evt_ id keeps its documented 400 for a malformed value.
    params: {
      event_id: pathParam(
        {
          description: 'The evt_ id (also the webhook-id header of its deliveries).',
          example: 'evt_01jd5x8m3q0000000000000000',
        },
        false,
        'event-id',
      ),
    },
    op: { id: 'getEvent', summary: 'Get one event', description: 'One event, exactly as sent to endpoints. Events are kept 30 days.' },
    ok: { type: EventDto, description: 'The event.' },
    problems: [400, 404],
  })
  get(@CurrentPrincipal() principal: ApiPrincipal, @PathParam('event_id') eventId: string): Promise<EventDto> {
    return this.events.get(principal, eventId);
  }
}
