import { Get, Query, type StreamableFile } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiProblems, TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { TranscriptDto, TranscriptQuery } from './dto/transcript.dto.js';
import { TranscriptsService } from './transcripts.service.js';
import { PathId } from '../common/validation/path-id.pipe.js';

@TaggedController('Calls', 'v1/calls/:call_id/transcript')
export class TranscriptsController {
  constructor(private readonly transcripts: TranscriptsService) {}

  @Get()
  @RequireScope('calls:transcript', {
    id: 'getCallTranscript',
    summary: "Get a call's transcript, paged by turn",
    description:
      'The transcript of a call, by turn. While has_more is true, pass next_start_turn as start_turn with the same limit and segment. The transcript can hold confidential and health information.',
  })
  @ApiOkResponse({ type: TranscriptDto, description: 'One page of turns, with the parts and briefings of the whole call.' })
  @ApiProblems(400, 404)
  get(
    @CurrentPrincipal() principal: ApiPrincipal,
    @PathId('call_id', 'The call', { description: 'As the calls list returned it.', example: 'call_01jd5x8m3q7k2w9n4b6c8d0f2h' })
    callId: string,
    @Query() query: TranscriptQuery,
  ): Promise<StreamableFile> {
    // Already serialised (a TranscriptDto's bytes), so a large answer streams with back-pressure.
    return this.transcripts.get(principal, callId, query);
  }
}
