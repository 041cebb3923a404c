import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CsrfRefusedError } from '../common/errors/problems.js';
import { ConsoleReadOnlyError, ConsoleSignInRequiredError } from './console.errors.js';
import { declarationOf } from '../common/http/route-declaration.js';
import { AppConfig } from '../config/app-config.js';
import { ConsoleSignInService } from './console-sign-in.service.js';
import { SESSION_COOKIE } from './console-tokens.js';

/** Requests that may change something: every console route but its pages and the chart's data. */
export const changesState = (method: string): boolean => method !== 'GET' && method !== 'HEAD';

/**
 * The service's own origins: BASE_URL's, and the origin the request was sent to (its Host, as the browser wrote it).
 * A page of another origin cannot make its browser send ours as Origin; a page reached under another host name
 * (DNS rebinding) gets no cookie of ours, so no session.
 */
function ownOrigins(req: FastifyRequest, config: AppConfig): string[] {
  const own = [`${req.protocol}://${req.host}`];
  if (config.baseUrlGiven) own.push(new URL(config.baseUrl).origin);
  return own;
}

/** The request's Origin, or without one its Referer's origin; undefined when neither says (or says "null"). */
function originOf(req: FastifyRequest): string | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined) return origin === 'null' ? undefined : origin;
  try {
    return req.headers.referer ? new URL(req.headers.referer).origin : undefined;
  } catch {
    return undefined;
  }
}

/** The session cookie's value, read with @fastify/cookie's parser (the first one of that name). */
export const sessionCookieOf = (req: FastifyRequest): string | undefined =>
  req.headers.cookie === undefined ? undefined : req.server.parseCookie(req.headers.cookie)[SESSION_COOKIE];

/**
 * The access stage of routes declared CONSOLE_SESSION (installed through the early access hook, before a byte of a
 * body is read): the session the cookie names (401 without one), and for a request that changes something an
 * Origin (or Referer) of the service's own (403), from a session that may change things (403 for a read-only one,
 * but for Sign out). The CSRF token, which travels in the form, is checked by @fastify/csrf-protection once the body
 * is read and before any handler runs (console-http.ts).
 */
@Injectable()
export class ConsoleGate {
  constructor(
    private readonly signIn: ConsoleSignInService,
    private readonly config: AppConfig,
  ) {}

  async admit(req: FastifyRequest): Promise<void> {
    const session = await this.signIn.authenticate(sessionCookieOf(req));
    if (!session) throw new ConsoleSignInRequiredError();
    if (changesState(req.method)) {
      const origin = originOf(req);
      if (origin === undefined || !ownOrigins(req, this.config).includes(origin)) {
        throw new CsrfRefusedError(
          'This request did not come from the console’s own page (its Origin is not this service); nothing was changed.',
        );
      }
      const access = declarationOf(req)?.access;
      if (session.readOnly && !(access?.kind === 'console' && access.allowsReadOnly)) throw new ConsoleReadOnlyError();
    }
    req.session = session;
  }
}
