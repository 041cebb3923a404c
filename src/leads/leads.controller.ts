import { Body, Query } from '@nestjs/common';
import { ApiBody, ApiExtraModels, getSchemaPath } from '@nestjs/swagger';
import { Endpoint, jsonBody, keyed, keyedRead, pathId } from '../common/http/access.decorators.js';
import { ApiConflict, TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PathParam } from '../common/http/route-input.js';
import { LEAD_CONFLICT_EXAMPLE, LeadConflictProblem, LeadListDto, LeadResponseDto, PatchLeadResponseDto } from './dto/lead.dto.js';
import { PatchLeadDto } from './dto/patch-lead.dto.js';
import { ListLeadsQuery } from './dto/list-leads.query.js';
import { LeadsService } from './leads.service.js';

const LEAD_ID = pathId('The lead', { description: 'As the leads list returned it.', example: 'lead_01jd5x8m3q7k2w9n4b6c8d0f2h' });

/**
 * A PATCH body holds three short fields (STATUS_REASON_MAX_LENGTH and EXTERNAL_ID_MAX_LENGTH characters at most): 16 KiB is
 * ample even with every character escaped as \uXXXX, and bounds what a key holding leads:write can make the
 * server read.
 */
const PATCH_BODY_BYTES = 16 * 1024;

@TaggedController('Leads', 'v1/leads')
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @Endpoint({
    method: 'GET',
    access: keyedRead('leads:read'),
    query: ListLeadsQuery,
    op: {
      id: 'listLeads',
      summary: "List the firm's leads, newest capture first",
      description:
        "The firm's leads, newest capture first. Poll with `updated_since` set to the previous run's `as_of`; upsert on `lead_id`, since a lead can come back more than once.",
    },
    ok: { type: LeadListDto, description: 'One page of leads and the cursor to the next.' },
    problems: [400],
  })
  list(@CurrentPrincipal() principal: ApiPrincipal, @Query() query: ListLeadsQuery): Promise<LeadListDto> {
    return this.leads.list(principal, query);
  }

  @Endpoint({
    method: 'GET',
    path: ':lead_id',
    etag: true,
    access: keyedRead('leads:narrative'),
    params: { lead_id: LEAD_ID },
    op: {
      id: 'getLead',
      summary: 'Get one lead with its intake',
      description: 'One lead as the list shows it, plus the full intake the receptionist extracted (null for a contact-only lead).',
    },
    ok: { type: LeadResponseDto, description: 'The lead and its intake.' },
    problems: [400, 404],
    notFound: 'The lead was not found.',
  })
  get(@CurrentPrincipal() principal: ApiPrincipal, @PathParam('lead_id') leadId: string): Promise<LeadResponseDto> {
    return this.leads.get(principal, leadId);
  }

  @Endpoint({
    method: 'PATCH',
    path: ':lead_id',
    access: keyed('leads:write'),
    body: jsonBody(PATCH_BODY_BYTES),
    params: { lead_id: LEAD_ID },
    op: {
      id: 'patchLead',
      summary: "Set a lead's status, the firm's own id, or the status note",
      description:
        'Each sent field replaces the stored value; omitted fields are kept. Sending values the lead already has changes nothing and answers 200 with changed false. With expected_status, a lead at another status answers 409 `status_conflict` and nothing changes. A change emits lead.updated.',
    },
    ok: { type: PatchLeadResponseDto, description: 'The lead after the request, and whether anything changed.' },
    problems: [400, 404, 413, 415],
    notFound: 'The lead was not found.',
    doc: [
      ApiBody({ type: PatchLeadDto, description: 'At least one of status, external_id, status_reason; no other members.' }),
      ApiExtraModels(LeadConflictProblem),
      ApiConflict(
        '`status_conflict`: the lead is not at expected_status, or changed while the request was handled; `detail` names its current status and `lead` holds it.',
        getSchemaPath(LeadConflictProblem),
        LEAD_CONFLICT_EXAMPLE,
      ),
    ],
  })
  patch(
    @CurrentPrincipal() principal: ApiPrincipal,
    @PathParam('lead_id') leadId: string,
    @Body() body: PatchLeadDto,
  ): Promise<PatchLeadResponseDto> {
    return this.leads.patch(principal, leadId, body);
  }
}
