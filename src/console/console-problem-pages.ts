import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUuid } from '../common/ids.js';
import { sessionCookieOf } from './console-gate.js';
import { CONSOLE_PATH } from './console-tokens.js';
import { ConsoleViews } from './console-views.js';

interface Problem {
  status: number;
  title: string;
  detail: string;
  code: string;
}

const wantsHtml = (req: FastifyRequest) => /\btext\/html\b/.test(req.headers.accept ?? '');

/** The endpoint a console request was about (its path's endpoint_id), if any. */
function endpointOf(req: FastifyRequest): string | undefined {
  const params = req.params;
  if (params === null || typeof params !== 'object' || !('endpoint_id' in params) || typeof params.endpoint_id !== 'string')
    return undefined;
  return isUuid(params.endpoint_id) ? params.endpoint_id.toLowerCase() : undefined;
}

/**
 * How a console route's answer leaves: never cached, and a refusal (problem+json) shown to a browser as a page that
 * says what happened and links back to the endpoint it came from (or the list, when that endpoint is not found);
 * a request whose session cookie no longer names a session (signed out, revoked, expired) gets the signed-out page.
 */
@Injectable()
export class ConsoleProblemPages {
  constructor(private readonly views: ConsoleViews) {}

  /** The route's onSend hook (synchronous: it runs on every console answer). */
  readonly onSend = (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    const problem = String(reply.getHeader('content-type') ?? '').startsWith('application/problem+json');
    if (!problem || typeof payload !== 'string' || !wantsHtml(req)) return done(null, payload);
    reply.header('content-type', 'text/html; charset=utf-8');
    reply.removeHeader('content-length');
    done(null, this.page(req, JSON.parse(payload) as Problem));
  };

  private page(req: FastifyRequest, problem: Problem): string {
    const signIn = problem.code === 'console_sign_in_required';
    if (signIn && sessionCookieOf(req) !== undefined) return this.views.render('signed-out', {});
    // Arriving from another site (a link in an email), a SameSite=Strict cookie is not sent; the page then reloads
    // itself once, from our own origin, which sends it.
    const reload = signIn && req.method === 'GET' && req.headers['sec-fetch-site'] === 'cross-site';
    const endpoint = problem.status === 404 ? undefined : endpointOf(req);
    const back = endpoint
      ? { href: `${CONSOLE_PATH}/endpoints/${endpoint}`, text: 'Back to the endpoint' }
      : { href: `${CONSOLE_PATH}/endpoints`, text: 'Back to your endpoints' };
    return this.views.render('problem', { ...problem, reload, signIn, back });
  }
}
