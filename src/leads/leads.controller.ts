import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiParam, ApiTags, getSchemaPath, ApiExtraModels } from '@nestjs/swagger';
import { KeyedRead, RequireScope } from '../common/http/access.decorators.js';
import { ApiConflict, ApiProblems } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { LeadConflictProblem, LeadListDto, LeadResponseDto, PatchLeadResponseDto } from './dto/lead.dto.js';
import { PatchLeadDto } from './dto/patch-lead.dto.js';
import { ListLeadsQuery } from './dto/list-leads.query.js';
import { LeadsService } from './leads.service.js';
import { PathIdPipe } from '../common/validation/path-id.pipe.js';

@ApiTags('Leads')
@Controller('v1/leads')
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @Get()
  @KeyedRead('leads:read', "List the firm's leads, newest capture first", LeadListDto, 400)
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListLeadsQuery): Promise<LeadListDto> {
    return this.leads.list(principal, query);
  }

  @Get(':lead_id')
  @KeyedRead('leads:narrative', 'Get one lead with its intake', LeadResponseDto, 400, 404)
  @ApiParam({ name: 'lead_id' })
  get(@CurrentPrincipal() principal: ApiPrincipal, @Param('lead_id', new PathIdPipe('The lead')) leadId: string): Promise<LeadResponseDto> {
    return this.leads.get(principal, leadId);
  }

  @Patch(':lead_id')
  @RequireScope('leads:write', "Set a lead's status, the firm's own id, or the status note")
  @ApiParam({ name: 'lead_id' })
  @ApiBody({ type: PatchLeadDto })
  @ApiOkResponse({ type: PatchLeadResponseDto })
  @ApiProblems(400, 404)
  @ApiExtraModels(LeadConflictProblem)
  @ApiConflict(
    '`status_conflict`: the lead is not at expected_status, or changed while the request was handled; `detail` names its current status and `lead` holds it.',
    getSchemaPath(LeadConflictProblem),
  )
  patch(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Param('lead_id', new PathIdPipe('The lead')) leadId: string,
    @Body() body: PatchLeadDto,
  ): Promise<PatchLeadResponseDto> {
    return this.leads.patch(principal, leadId, body);
  }
}
