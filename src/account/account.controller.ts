import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
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
  @RequireScope('org:read', 'Get account status and the calling key')
  @ApiOkResponse({ type: AccountDto })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: ApiPrincipal): Promise<AccountDto> {
    return this.account.describe(principal);
  }
}
