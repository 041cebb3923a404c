import { Endpoint, keyed } from '../common/http/access.decorators.js';
import { ApiConflict, TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PublishedReceptionistDto } from './dto/receptionist-settings.dto.js';
import { ReceptionistService } from './receptionist.service.js';
import { NOT_PUBLISHED_EXAMPLE } from './receptionist.errors.js';

@TaggedController('Receptionist', 'v1/receptionist')
export class ReceptionistController {
  constructor(private readonly receptionist: ReceptionistService) {}

  @Endpoint({
    method: 'GET',
    etag: true,
    access: keyed('receptionist:read'),
    op: {
      id: 'getReceptionist',
      summary: 'Get the published receptionist settings',
      description:
        'The receptionist settings in force (read-only: they are changed in the dashboard). `draft_pending` says whether drafted changes are not yet applied.',
    },
    ok: { type: PublishedReceptionistDto, description: 'The published settings.' },
    problems: [400],
    doc: [ApiConflict('`not_published`: the firm has never published its settings.', undefined, NOT_PUBLISHED_EXAMPLE)],
  })
  get(@CurrentPrincipal() principal: ApiPrincipal): Promise<PublishedReceptionistDto> {
    return this.receptionist.getPublished(principal.orgId);
  }
}
