import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiParam } from '@nestjs/swagger';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiProblems, TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { EventDto, EventListDto, ListEventsQueryDto } from './dto/event.dto.js';
import { EventsService } from './events.service.js';
import { LIST_EVENTS, GET_EVENT } from './events.operations.js';
import { ClientGone } from './client-gone.js';
import { WaitingEventsList } from './waiting-events-list.js';

@TaggedController('Events', 'v1/events')
export class EventsController {
  constructor(
    private readonly events: EventsService,
    private readonly waiting: WaitingEventsList,
  ) {}

  @Get()
  @RequireScope('webhooks:read', LIST_EVENTS)
  @ApiOkResponse({ type: EventListDto, description: 'One page of events.' })
  @ApiProblems(400)
  list(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Query() query: ListEventsQueryDto,
    @ClientGone() gone: AbortSignal,
  ): Promise<EventListDto> {
    const page = { after: query.after, type: query.type, limit: query.limit ?? 50 };
    return this.waiting.list(principal.orgId, page, query.wait ?? 0, gone);
  }

  @Get(':event_id')
  @RequireScope('webhooks:read', GET_EVENT)
  @ApiParam({
    name: 'event_id',
    description: 'The evt_ id (also the webhook-id header of its deliveries).',
    example: 'evt_01jd5x8m3q0000000000000000',
  })
  @ApiOkResponse({ type: EventDto, description: 'The event.' })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: ApiPrincipal, @Param('event_id') eventId: string, @Query() _query: NoQueryDto): Promise<EventDto> {
    return this.events.get(principal.orgId, eventId);
  }
}
