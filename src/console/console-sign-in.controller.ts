import { Controller, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CONSOLE_SESSION, Endpoint, formBody, linkToken, pathParam } from '../common/http/access.decorators.js';
import type { RouteAccess } from '../common/http/route-declaration.js';
import { PathParam } from '../common/http/route-input.js';
import { AppConfig } from '../config/app-config.js';
import { ConsoleSignInService } from './console-sign-in.service.js';
import { CurrentConsoleSession, type ConsoleSession } from './console-session.js';
import { CONSOLE_PATH, SESSION_COOKIE, SESSION_LIFETIME_MS, sessionCookieOptions } from './console-tokens.js';
import { ConsoleViews } from './console-views.js';
import { redirectTo, sendPage } from './console-replies.js';

const REFUSED_STATUS = { unknown: 404, used: 410, expired: 410 } as const;
const SIGN_OUT: RouteAccess = { kind: 'console', allowsReadOnly: true };

/** Entering and leaving the console. */
@Controller('console')
export class ConsoleSignInController {
  constructor(
    private readonly signIn: ConsoleSignInService,
    private readonly views: ConsoleViews,
    private readonly config: AppConfig,
  ) {}

  /** The cookie is Secure whenever the service is served over https (BASE_URL). */
  private get secureCookie(): boolean {
    return this.config.baseUrl.startsWith('https:');
  }

  /**
   * The one-time link: a first opening signs the browser in and sends it on to the endpoint list (an address without
   * the token); a used, expired or unknown link gets a plain page saying so, and no session.
   */
  @Endpoint({
    method: 'GET',
    path: 'sign-in/:token',
    access: linkToken('token'),
    params: { token: pathParam(undefined, true) },
    browser: true,
  })
  async open(@PathParam('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    const result = await this.signIn.signIn(token);
    if (!result.ok) {
      sendPage(reply, this.views.render('link-refused', { reason: result.reason }), REFUSED_STATUS[result.reason]);
      return;
    }
    reply.setCookie(SESSION_COOKIE, result.secret, { ...sessionCookieOptions(this.secureCookie), maxAge: SESSION_LIFETIME_MS / 1000 });
    redirectTo(reply, `${CONSOLE_PATH}/endpoints`);
  }

  @Endpoint({ method: 'GET', access: CONSOLE_SESSION, browser: true })
  home(@Res() reply: FastifyReply): void {
    redirectTo(reply, `${CONSOLE_PATH}/endpoints`);
  }

  /**
   * "Sign out": the session ends (in every process: it is gone from the database) and the cookie is removed. A
   * read-only session may sign out too (it changes no endpoint).
   */
  @Endpoint({ method: 'POST', path: 'sign-out', access: SIGN_OUT, body: formBody(16 * 1024), status: 200, browser: true })
  async signOut(@CurrentConsoleSession() session: ConsoleSession, @Res() reply: FastifyReply): Promise<void> {
    await this.signIn.signOut(session);
    reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(this.secureCookie));
    sendPage(reply, this.views.render('signed-out', {}));
  }
}
