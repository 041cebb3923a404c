import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { KeyedRead } from '../common/http/access.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { CallsService } from './calls.service.js';
import { CallListDto, CallResponseDto } from './dto/call.dto.js';
import { ListCallsQuery } from './dto/list-calls.query.js';
import { PathIdPipe } from '../common/validation/path-id.pipe.js';

@ApiTags('Calls')
@Controller('v1/calls')
export class CallsController {
  constructor(private readonly calls: CallsService) {}

  @Get()
  @KeyedRead(
    'calls:read',
    {
      id: 'listCalls',
      summary: "List the firm's calls, newest first",
      description:
        "The firm's calls, newest first by start time, including unanswered ones. To sync: keep the first page's `as_of` and pass it as the next run's `updated_since`; upsert on `call_id`, since a call can come back more than once.",
      ok: 'One page of calls and the cursor to the next.',
    },
    CallListDto,
    400,
  )
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListCallsQuery): Promise<CallListDto> {
    return this.calls.list(principal, query);
  }

  @Get(':call_id')
  @KeyedRead(
    'calls:read',
    {
      id: 'getCall',
      summary: 'Get one call with its routing record',
      description:
        'One call with the detail-only fields: the conversation summary, the routing record (`handling`) and its plain-sentence `explanation`.',
      ok: 'The call.',
    },
    CallResponseDto,
    400,
    404,
  )
  @ApiParam({ name: 'call_id', description: 'As the list returned it.', example: 'call_01jd5x8m3q7k2w9n4b6c8d0f2h' })
  get(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Param('call_id', new PathIdPipe('The call')) callId: string,
    @Query() _query: NoQueryDto,
  ): Promise<CallResponseDto> {
    return this.calls.get(principal, callId);
  }
}
