import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiProblems } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { AccountService } from './account.service.js';
import { AccountDto } from './dto/account.dto.js';

@ApiTags('Account')
@Controller('v1/account')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get()
  @RequireScope('org:read', {
    id: 'getAccount',
    summary: 'Get account status and the calling key',
    description:
      "The firm's account and setup status, the next setup step, and the calling key's name, prefix, last4, scopes and expiry, so a client can check its permissions.",
  })
  @ApiOkResponse({ type: AccountDto, description: 'The account.' })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: ApiPrincipal, @Query() _query: NoQueryDto): Promise<AccountDto> {
    return this.account.describe(principal);
  }
}
