import { Endpoint, keyed } from '../common/http/access.decorators.js';
import { TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { AccountService } from './account.service.js';
import { AccountDto } from './dto/account.dto.js';

@TaggedController('Account', 'v1/account')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Endpoint({
    method: 'GET',
    etag: true,
    access: keyed('org:read'),
    op: {
      id: 'getAccount',
      summary: 'Get account status and the calling key',
      description:
        "The firm's account and setup status, the next setup step, and the calling key's name, prefix, last4, scopes and expiry, so a client can check its permissions.",
    },
    ok: { type: AccountDto, description: 'The account.' },
    problems: [400, 404],
    // The firm of the key is gone (the account service's wording, with the firm id of AccountOrgDto's example).
    notFound: 'no firm with id "6b0e4f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b"',
  })
  get(@CurrentPrincipal() principal: ApiPrincipal): Promise<AccountDto> {
    return this.account.describe(principal);
  }
}
