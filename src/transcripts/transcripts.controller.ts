import { Query, type StreamableFile } from '@nestjs/common';
import { Endpoint, keyed, pathId } from '../common/http/access.decorators.js';
import { TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PathParam } from '../common/http/route-input.js';
import { TranscriptDto, TranscriptQuery } from './dto/transcript.dto.js';
import { TranscriptsService } from './transcripts.service.js';

@TaggedController('Calls', 'v1/calls/:call_id/transcript')
export class TranscriptsController {
  constructor(private readonly transcripts: TranscriptsService) {}

  @Endpoint({
    method: 'GET',
    etag: true,
    access: keyed('calls:transcript'),
    params: { call_id: pathId('The call', { description: 'As the calls list returned it.', example: 'call_01jd5x8m3q7k2w9n4b6c8d0f2h' }) },
    query: TranscriptQuery,
    op: {
      id: 'getCallTranscript',
      summary: "Get a call's transcript, paged by turn",
      description:
        'The transcript of a call, by turn. While has_more is true, pass next_start_turn as start_turn with the same limit and segment. The transcript can hold confidential and health information.',
    },
    ok: { type: TranscriptDto, description: 'One page of turns, with the parts and briefings of the whole call.' },
    problems: [400, 404],
    notFound: 'The call was not found.',
  })
  get(
    @CurrentPrincipal() principal: ApiPrincipal,
    @PathParam('call_id') callId: string,
    @Query() query: TranscriptQuery,
  ): Promise<StreamableFile> {
    // Already serialised (a TranscriptDto's bytes), so a large answer streams with back-pressure.
    return this.transcripts.get(principal, callId, query);
  }
}
