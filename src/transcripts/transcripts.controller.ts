import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiProblems } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { TranscriptDto, TranscriptQuery } from './dto/transcript.dto.js';
import { TranscriptsService } from './transcripts.service.js';
import { PathIdPipe } from '../common/validation/path-id.pipe.js';

@ApiTags('Calls')
@Controller('v1/calls/:call_id/transcript')
export class TranscriptsController {
  constructor(private readonly transcripts: TranscriptsService) {}

  @Get()
  @RequireScope('calls:transcript', "Get a call's transcript, paged by turn")
  @ApiParam({ name: 'call_id' })
  @ApiOkResponse({ type: TranscriptDto })
  @ApiProblems(400, 404)
  get(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Param('call_id', new PathIdPipe('The call')) callId: string,
    @Query() query: TranscriptQuery,
  ): Promise<TranscriptDto> {
    return this.transcripts.get(principal, callId, query);
  }
}
