import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiConflict, ApiProblems } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PublishedReceptionistDto } from './dto/receptionist-settings.dto.js';
import { ReceptionistService } from './receptionist.service.js';

@ApiTags('Receptionist')
@Controller('v1/receptionist')
export class ReceptionistController {
  constructor(private readonly receptionist: ReceptionistService) {}

  @Get()
  @RequireScope('receptionist:read', {
    id: 'getReceptionist',
    summary: 'Get the published receptionist settings',
    description:
      'The receptionist settings in force (read-only: they are changed in the dashboard). `draft_pending` says whether drafted changes are not yet applied.',
  })
  @ApiOkResponse({ type: PublishedReceptionistDto, description: 'The published settings.' })
  @ApiProblems(400)
  @ApiConflict('`not_published`: the firm has never published its settings.')
  get(@CurrentPrincipal() principal: ApiPrincipal, @Query() _query: NoQueryDto): Promise<PublishedReceptionistDto> {
    return this.receptionist.getPublished(principal.orgId);
  }
}
