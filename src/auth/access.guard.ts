import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InternalError } from '../common/errors/problems.js';
import { PRINCIPAL, type ApiPrincipal } from '../common/http/principal.js';
import { declarationOf } from '../common/http/route-declaration.js';
import { checkDeclaredInput } from '../common/http/route-input.js';
import { ApiKeyService } from './api-key.service.js';
import { checkKeyAccess, EARLY_PRINCIPAL } from './early-auth.hook.js';
import { RateLimitService } from './rate-limit.service.js';

/**
 * The stage after the body is read, reading the same declaration as the
 * onRequest stage (early-auth.hook.ts), which has already checked the key,
 * its scope or the internal token: deny a route that declares nothing; for a
 * keyed route hand the principal found there to the handler and take one
 * token from the key's bucket; then check the declared path ids and query.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly logger = new Logger(AccessGuard.name);

  constructor(
    private readonly keys: ApiKeyService,
    private readonly rateLimit: RateLimitService,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    const declaration = declarationOf(req);
    if (!declaration) {
      this.logger.error(`route ${ctx.getClass().name}.${ctx.getHandler().name} declares no access rule; denying`);
      throw new InternalError(randomUUID(), 'This endpoint is misconfigured.');
    }
    if (declaration.access.kind === 'key') {
      const raw = req as unknown as Record<symbol, ApiPrincipal | undefined>;
      const principal =
        raw[EARLY_PRINCIPAL] ?? (await this.keys.authenticate(req.headers.authorization, declaration.access.recheckedInRead === true));
      checkKeyAccess(declaration.access, principal);
      raw[PRINCIPAL] = principal;
      // The general per-key limit; its headers go on every keyed answer.
      ctx
        .switchToHttp()
        .getResponse<FastifyReply>()
        .headers(await this.rateLimit.take(principal.keyId));
    }
    await checkDeclaredInput(req, declaration);
    return true;
  }
}
