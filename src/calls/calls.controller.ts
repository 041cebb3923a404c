import { TaggedController } from '../common/http/openapi.decorators.js';
import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { Query } from '@nestjs/common';
import { KeyedRead } from '../common/http/access.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { CallsService } from './calls.service.js';
import { CallListDto, CallResponseDto } from './dto/call.dto.js';
import { ListCallsQuery } from './dto/list-calls.query.js';
import { PathId } from '../common/validation/path-id.pipe.js';
import { LIST_CALLS, GET_CALL } from './calls.operations.js';

@TaggedController('Calls', 'v1/calls')
export class CallsController {
  constructor(private readonly calls: CallsService) {}

  @KeyedRead('', 'calls:read', LIST_CALLS, CallListDto, 400)
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListCallsQuery): Promise<CallListDto> {
    return this.calls.list(principal, query);
  }

  @KeyedRead(':call_id', 'calls:read', GET_CALL, CallResponseDto, 400, 404)
  get(
    @CurrentPrincipal() principal: ApiPrincipal,
    @PathId('call_id', 'The call', { description: 'As the list returned it.', example: 'call_01jd5x8m3q7k2w9n4b6c8d0f2h' }) callId: string,
    @Query() _query: NoQueryDto,
  ): Promise<CallResponseDto> {
    return this.calls.get(principal, callId);
  }
}
