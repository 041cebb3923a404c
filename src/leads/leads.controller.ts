import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { Body, Patch, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, getSchemaPath, ApiExtraModels } from '@nestjs/swagger';
import { KeyedRead, RequireScope } from '../common/http/access.decorators.js';
import { ApiConflict, ApiProblems, TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { LEAD_CONFLICT_EXAMPLE, LeadConflictProblem, LeadListDto, LeadResponseDto, PatchLeadResponseDto } from './dto/lead.dto.js';
import { PatchLeadDto } from './dto/patch-lead.dto.js';
import { ListLeadsQuery } from './dto/list-leads.query.js';
import { LeadsService } from './leads.service.js';
import { PathId } from '../common/validation/path-id.pipe.js';
import { LIST_LEADS, GET_LEAD, PATCH_LEAD } from './leads.operations.js';

const LEAD_ID = { description: 'As the leads list returned it.', example: 'lead_01jd5x8m3q7k2w9n4b6c8d0f2h' };

@TaggedController('Leads', 'v1/leads')
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @KeyedRead('', 'leads:read', LIST_LEADS, LeadListDto, 400)
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListLeadsQuery): Promise<LeadListDto> {
    return this.leads.list(principal, query);
  }

  @KeyedRead(':lead_id', 'leads:narrative', GET_LEAD, LeadResponseDto, 400, 404)
  get(
    @CurrentPrincipal() principal: ApiPrincipal,
    @PathId('lead_id', 'The lead', LEAD_ID) leadId: string,
    @Query() _query: NoQueryDto,
  ): Promise<LeadResponseDto> {
    return this.leads.get(principal, leadId);
  }

  @Patch(':lead_id')
  @RequireScope('leads:write', PATCH_LEAD)
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
    @PathId('lead_id', 'The lead', LEAD_ID) leadId: string,
    @Query() _query: NoQueryDto,
    @Body() body: PatchLeadDto,
  ): Promise<PatchLeadResponseDto> {
    return this.leads.patch(principal, leadId, body);
  }
}
