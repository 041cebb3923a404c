import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiParam, ApiTags, getSchemaPath, ApiExtraModels } from '@nestjs/swagger';
import { KeyedRead, RequireScope } from '../common/http/access.decorators.js';
import { ApiConflict, ApiProblems } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { LEAD_CONFLICT_EXAMPLE, LeadConflictProblem, LeadListDto, LeadResponseDto, PatchLeadResponseDto } from './dto/lead.dto.js';
import { PatchLeadDto } from './dto/patch-lead.dto.js';
import { ListLeadsQuery } from './dto/list-leads.query.js';
import { LeadsService } from './leads.service.js';
import { PathIdPipe } from '../common/validation/path-id.pipe.js';
import { LIST_LEADS, GET_LEAD, PATCH_LEAD } from './leads.operations.js';

@ApiTags('Leads')
@Controller('v1/leads')
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @Get()
  @KeyedRead('leads:read', LIST_LEADS, LeadListDto, 400)
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListLeadsQuery): Promise<LeadListDto> {
    return this.leads.list(principal, query);
  }

  @Get(':lead_id')
  @KeyedRead('leads:narrative', GET_LEAD, LeadResponseDto, 400, 404)
  @ApiParam({ name: 'lead_id', description: 'As the leads list returned it.', example: 'lead_01jd5x8m3q7k2w9n4b6c8d0f2h' })
  get(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Param('lead_id', new PathIdPipe('The lead')) leadId: string,
    @Query() _query: NoQueryDto,
  ): Promise<LeadResponseDto> {
    return this.leads.get(principal, leadId);
  }

  @Patch(':lead_id')
  @RequireScope('leads:write', PATCH_LEAD)
  @ApiParam({ name: 'lead_id', description: 'As the leads list returned it.', example: 'lead_01jd5x8m3q7k2w9n4b6c8d0f2h' })
  @ApiBody({ type: PatchLeadDto, description: 'At least one of status, external_id, status_reason; no other members.' })
  @ApiOkResponse({ type: PatchLeadResponseDto, description: 'The lead after the request, and whether anything changed.' })
  @ApiProblems(400, 404, 413, 415)
  @ApiExtraModels(LeadConflictProblem)
  @ApiConflict(
    '`status_conflict`: the lead is not at expected_status, or changed while the request was handled; `detail` names its current status and `lead` holds it.',
    getSchemaPath(LeadConflictProblem),
    LEAD_CONFLICT_EXAMPLE,
  )
  patch(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Param('lead_id', new PathIdPipe('The lead')) leadId: string,
    @Query() _query: NoQueryDto,
    @Body() body: PatchLeadDto,
  ): Promise<PatchLeadResponseDto> {
    return this.leads.patch(principal, leadId, body);
  }
}
