import { Get, Query } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiConflict, ApiProblems, TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PublishedReceptionistDto } from './dto/receptionist-settings.dto.js';
import { ReceptionistService } from './receptionist.service.js';
import { GET_RECEPTIONIST } from './receptionist.operations.js';

@TaggedController('Receptionist', 'v1/receptionist')
export class ReceptionistController {
  constructor(private readonly receptionist: ReceptionistService) {}

  @Get()
  @RequireScope('receptionist:read', GET_RECEPTIONIST)
  @ApiOkResponse({ type: PublishedReceptionistDto, description: 'The published settings.' })
  @ApiProblems(400)
  @ApiConflict('`not_published`: the firm has never published its settings.')
  get(@CurrentPrincipal() principal: ApiPrincipal, @Query() _query: NoQueryDto): Promise<PublishedReceptionistDto> {
    return this.receptionist.getPublished(principal.orgId);
  }
}
