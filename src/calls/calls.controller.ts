import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiProblems } from '../common/http/openapi.decorators.js';
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
  @RequireScope('calls:read', "List the firm's calls, newest first")
  @ApiOkResponse({ type: CallListDto })
  @ApiProblems(400)
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListCallsQuery): Promise<CallListDto> {
    return this.calls.list(principal, query);
  }

  @Get(':call_id')
  @RequireScope('calls:read', 'Get one call with its routing record')
  @ApiParam({ name: 'call_id', description: 'As the list returned it.' })
  @ApiOkResponse({ type: CallResponseDto })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: ApiPrincipal, @Param('call_id', new PathIdPipe('The call')) callId: string): Promise<CallResponseDto> {
    return this.calls.get(principal, callId);
  }
}
