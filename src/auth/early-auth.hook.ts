import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvalidRequestError } from '../common/errors/problems.js';
import { sendProblem } from '../common/errors/problem.filter.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { ApiPrincipal } from '../common/http/principal.js';
import { readsBody } from '../common/http/unread-bodies.js';
import type { AppConfig } from '../config/app-config.js';
import type { ApiKeyService } from './api-key.service.js';
import { checkInternalToken } from './internal-token.js';

/** The principal the early check found; AccessGuard uses it instead of a second lookup. */
export const EARLY_PRINCIPAL = Symbol('earlyPrincipal');

/** Node keeps only the first of repeated Authorization headers in req.headers; the raw list shows them all. */
export function authorizationHeaderCount(rawHeaders: string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === 'authorization') n++;
  return n;
}

async function checkCredentials(req: FastifyRequest, keys: ApiKeyService, config: AppConfig): Promise<void> {
  if (authorizationHeaderCount(req.raw.rawHeaders) > 1) {
    throw new InvalidRequestError('Send exactly one Authorization header.', 'authorization');
  }
  // Only routes that exist and take a body: there the key is checked before a byte of the body is read.
  if (!readsBody(req)) return;
  const route = req.routeOptions.url ?? '';
  const header = req.headers.authorization;
  if (route.startsWith('/internal/')) checkInternalToken(config, header);
  else if (route.startsWith('/v1/')) (req as unknown as Record<symbol, ApiPrincipal>)[EARLY_PRINCIPAL] = await keys.authenticate(header);
}

/**
 * Runs before Fastify reads a body (Nest's guards run only after it): a
 * request with two Authorization headers is refused, and a keyed request with
 * a body and no valid key is answered 401 at once, closing the connection,
 * instead of waiting for a body nobody will use.
 */
export function installEarlyAuth(fastify: FastifyInstance, keys: ApiKeyService, config: AppConfig): void {
  fastify.addHook('onRequest', async (req, reply) => {
    try {
      await checkCredentials(req, keys, config);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      reply.header('connection', 'close');
      sendProblem(reply, req.id, e);
      return reply;
    }
  });
}
