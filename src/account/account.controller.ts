import { Get, Query } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { NoQueryDto } from '../common/validation/no-query.dto.js';
import { RequireScope } from '../common/http/access.decorators.js';
import { ApiProblems, TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { AccountService } from './account.service.js';
import { AccountDto } from './dto/account.dto.js';
import { GET_ACCOUNT } from './account.operations.js';

@TaggedController('Account', 'v1/account')
export class AccountController {
  constructor(private readonly account: AccountService) {}

  @Get()
  @RequireScope('org:read', GET_ACCOUNT)
  @ApiOkResponse({ type: AccountDto, description: 'The account.' })
  @ApiProblems(400, 404)
  get(@CurrentPrincipal() principal: ApiPrincipal, @Query() _query: NoQueryDto): Promise<AccountDto> {
    return this.account.describe(principal);
  }
}
