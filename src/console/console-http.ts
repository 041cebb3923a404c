import { Injectable } from '@nestjs/common';
import type { FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { NO_BODY, PUBLIC } from '../common/http/access.decorators.js';
import type { RouteDeclaration } from '../common/http/route-declaration.js';
import { declareRoutesOf } from '../common/http/route-table.js';
import { parseForm } from './console-form.js';
import { changesState } from './console-gate.js';
import { ConsoleProblemPages } from './console-problem-pages.js';
import { CONSOLE_PATH } from './console-tokens.js';
import { consoleUiFolder, uplotFolder } from './console-views.js';

/**
 * What @fastify/helmet sets on every console answer: scripts, styles and images only from the service itself (no
 * CDN, no inline script or style, no eval), forms post only to it, no other site may frame a page, and helmet's other
 * defaults (nosniff, no DNS prefetch, same-origin opener and resources). HSTS is left to whoever terminates TLS.
 */
export const CONSOLE_HELMET: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
  // Not no-referrer: under it a browser sends Origin: null on the console's own form posts.
  referrerPolicy: { policy: 'same-origin' },
  xFrameOptions: { action: 'deny' },
  strictTransportSecurity: false,
};

/** The browser files the console serves: its own script, style and icon, uPlot's build as it ships. */
const ASSETS = new Set(['console.js', 'console.css', 'favicon.svg', 'uPlot.iife.min.js', 'uPlot.min.css']);
const ASSET_FILES: RouteDeclaration = { access: PUBLIC, body: NO_BODY, params: {}, query: 'any', credentialQuery: [], browser: true };

/** Where a form carries its CSRF token (field csrf_token), or a script sends it (header X-CSRF-Token). */
function csrfTokenOf(req: FastifyRequest): string | undefined {
  const header = req.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const body = req.body;
  return body !== null && typeof body === 'object' && 'csrf_token' in body && typeof body.csrf_token === 'string'
    ? body.csrf_token
    : undefined;
}

/**
 * The console's HTTP parts, from Fastify's own plugins, registered where the app is built (src/create-app.ts) before
 * any route and before the early access hook: @fastify/cookie (the session cookie, read by the gate and set by sign-in),
 * @fastify/formbody (forms, read only by routes declaring a form body: the early stage refuses one elsewhere),
 * @fastify/helmet (security headers, on browser routes only) and @fastify/csrf-protection (each form's token, made from
 * the session's secret and checked before the handler of every request that changes something); and the browser
 * files. Every browser route's answer is marked no-store and a refusal shown as a page (ConsoleProblemPages).
 */
@Injectable()
export class ConsoleHttp {
  constructor(private readonly problems: ConsoleProblemPages) {}

  async install(fastify: FastifyInstance): Promise<void> {
    fastify.decorateRequest('session', null);
    // Before the plugins' own onRoute hooks: helmet reads the `helmet` option set here.
    fastify.addHook('onRoute', (route) => this.fitRoute(fastify, route));
    // Loaded here, when the HTTP app is built: the CLI imports the console context and never serves a page.
    const [cookie, formbody, helmet, csrf] = await Promise.all([
      import('@fastify/cookie'),
      import('@fastify/formbody'),
      import('@fastify/helmet'),
      import('@fastify/csrf-protection'),
    ]);
    // No hook: API requests parse no cookie; the gate reads the console's with fastify.parseCookie.
    await fastify.register(cookie.default, { hook: false });
    await fastify.register(formbody.default, { parser: parseForm });
    // global: false: only the routes fitRoute gives a `helmet` option get its headers.
    await fastify.register(helmet.default, { global: false, ...CONSOLE_HELMET });
    // The console's sessions are server-side: the plugin reads each one's CSRF secret from req.session.csrfSecret.
    await fastify.register(csrf.default, { sessionPlugin: '@fastify/session', sessionKey: 'csrfSecret', getToken: csrfTokenOf });
    await this.serveAssets(fastify);
  }

  /** A browser route: helmet's headers, no-store, refusals as pages; a console route that changes something: the CSRF check. */
  private fitRoute(fastify: FastifyInstance, route: RouteOptions): void {
    const declaration = route.config?.routeDeclaration;
    if (!declaration?.browser) return;
    route.helmet = {};
    route.onSend = [...[route.onSend ?? []].flat(), this.problems.onSend];
    if (declaration.body.kind === 'form') route.bodyLimit = declaration.body.maxBytes;
    if (declaration.access.kind === 'console' && [route.method].flat().some(changesState)) {
      const csrfCheck = (req: FastifyRequest, reply: FastifyReply, done: () => void) => fastify.csrfProtection(req, reply, done);
      route.preHandler = [...[route.preHandler ?? []].flat(), csrfCheck];
    }
  }

  /** uPlot's build and the console's own files, in a context of their own under the assets' prefix. */
  private async serveAssets(fastify: FastifyInstance): Promise<void> {
    const { default: fastifyStatic } = await import('@fastify/static');
    await declareRoutesOf(fastify, ASSET_FILES, () =>
      fastify.register(
        async (assets) => {
          await assets.register(fastifyStatic, {
            root: [`${consoleUiFolder()}/assets`, uplotFolder()],
            prefix: '/',
            decorateReply: false,
            index: false,
            list: false,
            allowedPath: (path) => ASSETS.has(path.replace(/^\//, '')),
          });
        },
        { prefix: `${CONSOLE_PATH}/assets` },
      ),
    );
  }
}
