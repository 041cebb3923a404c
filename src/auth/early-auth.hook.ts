import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InsufficientScopeError, InternalError, InvalidRequestError, TestModeOnlyError } from '../common/errors/problems.js';
import { sendProblem } from '../common/errors/problem.filter.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { ApiPrincipal } from '../common/http/principal.js';
import { declarationOf, matchedRoute, type RouteAccess, type RouteDeclaration } from '../common/http/route-declaration.js';
import { admitBody, announcesBody, continueIfExpected } from '../common/http/unread-bodies.js';
import type { AppConfig } from '../config/app-config.js';
import type { ApiKeyService } from './api-key.service.js';
import { checkInternalToken } from './internal-token.js';

/**
 * The access check of routes declared `console` (src/console implements it): resolves once the request's console
 * session is found and, for a request that changes something, its origin accepted; rejects with the refusal.
 */
export interface ConsoleSessionGate {
  admit(req: FastifyRequest): Promise<void>;
}

/** The principal the onRequest stage found; AccessGuard uses it instead of a second lookup. */
export const EARLY_PRINCIPAL = Symbol('earlyPrincipal');

/** Node keeps only the first of repeated Authorization headers in req.headers; the raw list shows them all. */
export function authorizationHeaderCount(rawHeaders: string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === 'authorization') n++;
  return n;
}

/** What a keyed route asks of the key found: its scope (403 insufficient_scope), a test key (403 test_mode_only). */
export function checkKeyAccess(access: Extract<RouteAccess, { kind: 'key' }>, principal: ApiPrincipal): void {
  if (access.scope !== null && !principal.scopes.includes(access.scope)) throw new InsufficientScopeError(access.scope);
  if (access.testOnly && principal.livemode) throw new TestModeOnlyError();
}

/** What the stage checks each kind of access with. */
export interface AccessGates {
  keys: ApiKeyService;
  config: AppConfig;
  console: ConsoleSessionGate;
}

/**
 * The route's declared access: its key and what the route asks of it, or the internal token. Synchronous (throwing
 * its refusal) unless the key must be looked up: then the promise of the same checks.
 */
function checkAccess(req: FastifyRequest, d: RouteDeclaration, gates: AccessGates): Promise<void> | undefined {
  const { keys, config } = gates;
  const header = req.headers.authorization;
  if (d.access.kind === 'internal') checkInternalToken(config, header);
  if (d.access.kind === 'console') return gates.console.admit(req);
  if (d.access.kind !== 'key') return undefined;
  const access = d.access;
  const grant = (principal: ApiPrincipal) => {
    checkKeyAccess(access, principal);
    (req as unknown as Record<symbol, ApiPrincipal>)[EARLY_PRINCIPAL] = principal;
  };
  const found = keys.authenticateNow(header, access.recheckedInRead === true);
  if (found instanceof Promise) return found.then(grant);
  grant(found);
  return undefined;
}

/** Every check of the stage: synchronous (throwing its refusal) unless the key must be looked up. */
function admit(req: FastifyRequest, reply: FastifyReply, gates: AccessGates): Promise<void> | undefined {
  if (authorizationHeaderCount(req.raw.rawHeaders) > 1) {
    throw new InvalidRequestError('Send exactly one Authorization header.', 'authorization');
  }
  if (!matchedRoute(req)) return;
  const declaration = declarationOf(req);
  if (!declaration) {
    req.log.error(`route ${req.method} ${req.routeOptions.url} declares no access rule; denying`);
    throw new InternalError(randomUUID(), 'This endpoint is misconfigured.');
  }
  const admitted = () => {
    admitBody(req, reply, declaration);
    continueIfExpected(req, reply, declaration);
  };
  const checking = checkAccess(req, declaration, gates);
  if (checking) return checking.then(admitted);
  admitted();
  return undefined;
}

/**
 * The first stage of every routed request, run before Fastify reads a byte of
 * the body (Nest's guards run only after it), reading the route's declaration
 * and nothing else: two Authorization headers are refused; a keyed route
 * checks the key and its scope (401, 403), an internal route its token, a
 * console route its session and origin (the console's gate: 401, 403); a
 * body the route does not take is refused or left unread (unread-bodies.ts);
 * only then does a client waiting on `Expect: 100-continue` get its 100.
 * A refusal with a body on its way closes the connection.
 */
export function installEarlyAuth(fastify: FastifyInstance, gates: AccessGates): void {
  // A callback hook: a request whose key is cached (or needs none) passes without a promise; a refusal answers and
  // does not call done; anything else goes to Fastify's error handling through done.
  fastify.addHook('onRequest', (req, reply, done) => {
    const refuse = (e: unknown) => {
      try {
        // Passed on as thrown (a driver's error may come from another realm, not instanceof Error, and keeps its code).
        if (!(e instanceof DomainError)) return done(e as Error);
        const d = declarationOf(req);
        if (announcesBody(req.headers) || (d && d.body.kind !== 'none')) reply.header('connection', 'close');
        sendProblem(reply, req.id, e);
      } catch (err) {
        done(err as Error);
      }
    };
    let pending: Promise<void> | undefined;
    try {
      pending = admit(req, reply, gates);
    } catch (e) {
      return refuse(e);
    }
    if (pending) pending.then(() => done(), refuse);
    else done();
  });
}
