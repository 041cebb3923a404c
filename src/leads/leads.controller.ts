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

@ApiTags('Leads')
@Controller('v1/leads')
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @Get()
  @KeyedRead(
    'leads:read',
    {
      id: 'listLeads',
      summary: "List the firm's leads, newest capture first",
      description:
        "The firm's leads, newest capture first. Poll with `updated_since` set to the previous run's `as_of`; upsert on `lead_id`, since a lead can come back more than once.",
      ok: 'One page of leads and the cursor to the next.',
    },
    LeadListDto,
    400,
  )
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListLeadsQuery): Promise<LeadListDto> {
    return this.leads.list(principal, query);
  }

  @Get(':lead_id')
  @KeyedRead(
    'leads:narrative',
    {
      id: 'getLead',
      summary: 'Get one lead with its intake',
      description: 'One lead as the list shows it, plus the full intake the receptionist extracted (null for a contact-only lead).',
      ok: 'The lead and its intake.',
    },
    LeadResponseDto,
    400,
    404,
  )
  @ApiParam({ name: 'lead_id', description: 'As the leads list returned it.', example: 'lead_01jd5x8m3q7k2w9n4b6c8d0f2h' })
  get(
    @CurrentPrincipal() principal: ApiPrincipal,
    @Param('lead_id', new PathIdPipe('The lead')) leadId: string,
    @Query() _query: NoQueryDto,
  ): Promise<LeadResponseDto> {
    return this.leads.get(principal, leadId);
  }

  @Patch(':lead_id')
  @RequireScope('leads:write', {
    id: 'patchLead',
    summary: "Set a lead's status, the firm's own id, or the status note",
    description:
      'Each sent field replaces the stored value; omitted fields are kept. Sending values the lead already has changes nothing and answers 200 with changed false. With expected_status, a lead at another status answers 409 `status_conflict` and nothing changes. A change emits lead.updated.',
  })
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
