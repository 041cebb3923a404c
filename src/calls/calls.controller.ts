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
  @KeyedRead('calls:read', "List the firm's calls, newest first", CallListDto, 400)
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListCallsQuery): Promise<CallListDto> {
    return this.calls.list(principal, query);
  }

  @Get(':call_id')
  @KeyedRead('calls:read', 'Get one call with its routing record', CallResponseDto, 400, 404)
  @ApiParam({ name: 'call_id', description: 'As the list returned it.' })
  get(@CurrentPrincipal() principal: ApiPrincipal, @Param('call_id', new PathIdPipe('The call')) callId: string): Promise<CallResponseDto> {
    return this.calls.get(principal, callId);
  }
}
