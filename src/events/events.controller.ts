import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiProblems } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { EventDto, EventListDto, ListEventsQueryDto } from './dto/event.dto.js';
import { EventsService } from './events.service.js';

@ApiTags('Events')
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @RequireScope('webhooks:read', 'List events, oldest first')
  @ApiOkResponse({ type: EventListDto })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListEventsQueryDto): Promise<EventListDto> {
    return this.events.list(principal.orgId, { after: query.after, type: query.type, limit: query.limit ?? 50 });
  }

  @Get(':event_id')
  @RequireScope('webhooks:read', 'Get one event')
  @ApiParam({ name: 'event_id', description: 'evt_ id' })
  @ApiOkResponse({ type: EventDto })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: ApiPrincipal, @Param('event_id') eventId: string): Promise<EventDto> {
    return this.events.get(principal.orgId, eventId);
  }
}
