import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../config/app-config.js';
import { InsufficientScopeError, InternalError } from '../common/errors/problems.js';
import { INTERNAL_ROUTE, PUBLIC_ROUTE, REQUIRED_SCOPE } from '../common/http/access.decorators.js';
import { PRINCIPAL, type ApiPrincipal } from '../common/http/principal.js';
import type { Scope } from '../common/http/scopes.js';
import { ApiKeyService } from './api-key.service.js';
import { checkInternalToken } from './internal-token.js';
import { EARLY_PRINCIPAL } from './early-auth.hook.js';
import { RateLimitService } from './rate-limit.service.js';

/**
 * Deny by default: a route must declare RequireScope, PublicRoute or
 * InternalRoute, or every request to it fails.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly logger = new Logger(AccessGuard.name);

  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeyService,
    private readonly config: AppConfig,
    private readonly rateLimit: RateLimitService,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    const req = ctx.switchToHttp().getRequest();
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(INTERNAL_ROUTE, targets)) return this.checkInternal(req.headers.authorization);
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, targets);
    if (!scope) {
      this.logger.error(`route ${ctx.getClass().name}.${ctx.getHandler().name} declares no access rule; denying`);
      throw new InternalError(randomUUID(), 'This endpoint is misconfigured.');
    }
    // Requests with a body were authenticated before it was read (early-auth.hook.ts).
    const principal = (req[EARLY_PRINCIPAL] as ApiPrincipal | undefined) ?? (await this.keys.authenticate(req.headers.authorization));
    if (!principal.scopes.includes(scope)) throw new InsufficientScopeError(scope);
    req[PRINCIPAL] = principal;
    // The general per-key limit; its headers go on every keyed answer.
    ctx
      .switchToHttp()
      .getResponse()
      .headers(await this.rateLimit.take(principal.keyId));
    return true;
  }

  private checkInternal(header: string | undefined): boolean {
    checkInternalToken(this.config, header);
    return true;
  }
}
