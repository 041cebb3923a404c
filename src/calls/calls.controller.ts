import { Query } from '@nestjs/common';
import { TaggedController } from '../common/http/openapi.decorators.js';
import { Endpoint, keyedRead, pathId } from '../common/http/access.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PathParam } from '../common/http/route-input.js';
import { CallsService } from './calls.service.js';
import { CallListDto, CallResponseDto } from './dto/call.dto.js';
import { ListCallsQuery } from './dto/list-calls.query.js';

const CALL_ID = pathId('The call', { description: 'As the list returned it.', example: 'call_01jd5x8m3q7k2w9n4b6c8d0f2h' });

@TaggedController('Calls', 'v1/calls')
export class CallsController {
  constructor(private readonly calls: CallsService) {}

  @Endpoint({
    method: 'GET',
    access: keyedRead('calls:read'),
    query: ListCallsQuery,
    op: {
      id: 'listCalls',
      summary: "List the firm's calls, newest first",
      description:
        "The firm's calls, newest first by start time, including unanswered ones. To sync: keep the first page's `as_of` and pass it as the next run's `updated_since`; upsert on `call_id`, since a call can come back more than once.",
    },
    ok: { type: CallListDto, description: 'One page of calls and the cursor to the next.' },
    problems: [400],
  })
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListCallsQuery): Promise<CallListDto> {
    return this.calls.list(principal, query);
  }

  @Endpoint({
    method: 'GET',
    path: ':call_id',
    etag: true,
    access: keyedRead('calls:read'),
    params: { call_id: CALL_ID },
    op: {
      id: 'getCall',
      summary: 'Get one call with its routing record',
      description:
        'One call with the detail-only fields: the conversation summary, the routing record (`handling`) and its plain-sentence `explanation`.',
    },
    ok: { type: CallResponseDto, description: 'The call.' },
    problems: [400, 404],
    notFound: 'The call was not found.',
  })
  get(@CurrentPrincipal() principal: ApiPrincipal, @PathParam('call_id') callId: string): Promise<CallResponseDto> {
    return this.calls.get(principal, callId);
  }
}
