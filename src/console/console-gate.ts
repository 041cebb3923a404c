import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ConsoleSignInRequiredError, CsrfRefusedError } from '../common/errors/problems.js';
import { AppConfig } from '../config/app-config.js';
import { ConsoleSignInService } from './console-sign-in.service.js';
import { CONSOLE_SESSION_OF, sessionOf, type ConsoleSession } from './console-session.js';
import { sameToken, sessionCookieOf } from './console-tokens.js';

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

/**
 * The access stage of routes declared CONSOLE_SESSION (installed through the early access hook, before a byte of a
 * body is read): the session the cookie names (401 without one), and for a request that changes something an
 * Origin (or Referer) of the service's own (403). The CSRF token, which travels in the form, is checked once the
 * body is read and before any handler runs (checkCsrfToken).
 */
@Injectable()
export class ConsoleGate {
  constructor(
    private readonly signIn: ConsoleSignInService,
    private readonly config: AppConfig,
  ) {}

  async admit(req: FastifyRequest): Promise<void> {
    const session = await this.signIn.authenticate(sessionCookieOf(req.headers.cookie));
    if (!session) throw new ConsoleSignInRequiredError();
    if (changesState(req.method)) {
      const origin = originOf(req);
      if (origin === undefined || !ownOrigins(req, this.config).includes(origin)) {
        throw new CsrfRefusedError(
          'This request did not come from the console’s own page (its Origin is not this service); nothing was changed.',
        );
      }
    }
    (req as unknown as Record<symbol, ConsoleSession>)[CONSOLE_SESSION_OF] = session;
  }
}

/** The CSRF token a form carries (field csrf_token) or a script sends (header X-CSRF-Token). */
function givenToken(req: FastifyRequest): string | undefined {
  const header = req.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const field = (req.body as Record<string, unknown> | undefined)?.csrf_token;
  return typeof field === 'string' ? field : undefined;
}

/** A state-changing console request must carry its session's CSRF token: the refusal, or undefined when it does. */
export function checkCsrfToken(req: FastifyRequest): CsrfRefusedError | undefined {
  const session = sessionOf(req);
  const given = givenToken(req);
  if (session && given !== undefined && sameToken(given, session.csrfToken)) return undefined;
  return new CsrfRefusedError('This form did not carry the console session’s token (reload the page and try again); nothing was changed.');
}
