import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { sendProblem } from '../common/errors/problem.filter.js';
import { NO_BODY, PUBLIC } from '../common/http/access.decorators.js';
import { declarationOf, ROUTE_DECLARATION, type RouteDeclaration } from '../common/http/route-declaration.js';
import { declareRoutesOf } from '../common/http/route-table.js';
import { FORM_TYPE } from '../common/http/unread-bodies.js';
import { BodyNotUtf8Error } from '../common/validation/json-body.js';
import { changesState, checkCsrfToken } from './console-gate.js';
import { CONSOLE_PATH } from './console-tokens.js';
import { consoleUiFolder, uplotFolder, type ConsoleViews } from './console-views.js';

/**
 * Scripts, styles and images only from the service itself (no CDN, no inline script or style, no eval), forms post
 * only to it, and no other site may frame a page.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** What every console answer carries. Referrer-Policy same-origin: under no-referrer a browser sends Origin: null on the console's own form posts. */
const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** The browser files the console serves: its own script, style and icon, uPlot's build as it ships. */
const ASSETS = new Set(['console.js', 'console.css', 'favicon.svg', 'uPlot.iife.min.js', 'uPlot.min.css']);
const ASSET_FILES: RouteDeclaration = { access: PUBLIC, body: NO_BODY, params: {}, query: 'any', credentialQuery: [], browser: true };

const framework = (message: string, statusCode: number, code: string) => Object.assign(new Error(message), { statusCode, code });

/** A form body, read up to its route's limit, strictly UTF-8: each field's value, or its values when repeated (checkboxes). */
async function readForm(payload: Readable, maxBytes: number): Promise<Record<string, string | string[]>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of payload) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw framework('Request body is too large', 413, 'FST_ERR_CTP_BODY_TOO_LARGE');
    chunks.push(chunk as Buffer);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new BodyNotUtf8Error();
  }
  const form: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const had = form[name];
    form[name] = had === undefined ? value : [had, value].flat();
  }
  return form;
}

const wantsHtml = (req: FastifyRequest) => /\btext\/html\b/.test(req.headers.accept ?? '');

/** A refusal on a console route, as a page for a browser (the problem document for anything else). */
function problemPage(req: FastifyRequest, reply: FastifyReply, payload: string, views: ConsoleViews): string {
  const problem = JSON.parse(payload) as { status: number; title: string; detail: string; code: string };
  reply.header('content-type', 'text/html; charset=utf-8');
  reply.removeHeader('content-length');
  // Arriving from another site (a link in an email), a SameSite=Strict cookie is not sent; the page then reloads
  // itself once, from our own origin, which sends it.
  const reload = problem.code === 'console_sign_in_required' && req.method === 'GET' && req.headers['sec-fetch-site'] === 'cross-site';
  return views.render('problem', { ...problem, reload, signIn: problem.code === 'console_sign_in_required' });
}

/** Before the handler of a console request that changes something: its session's CSRF token, else 403 (nothing runs). */
function csrfStage(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  if (!changesState(req.method)) return done();
  const refusal = checkCsrfToken(req);
  if (!refusal) return done();
  sendProblem(reply, req.id, refusal);
}

/** On the way out of a browser route: the security headers, and a refusal shown as a page to a browser. */
const browserAnswer =
  (views: ConsoleViews) =>
  (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void => {
    reply.headers(SECURITY_HEADERS);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    const problem = String(reply.getHeader('content-type') ?? '').startsWith('application/problem+json');
    if (!problem || typeof payload !== 'string' || !wantsHtml(req)) return done(null, payload);
    done(null, problemPage(req, reply, payload, views));
  };

/**
 * The console's HTTP parts, installed on the Fastify instance where the app is built (src/create-app.ts): HTML forms
 * are read only by routes that declare a form body; the browser files are served from the service; a request that
 * changes something is refused (403) before its handler runs unless it carries the session's CSRF token; and every
 * answer of a browser route carries the console's security headers, its refusals shown as pages.
 */
export function configureConsoleHttp(fastify: FastifyInstance, views: ConsoleViews): void {
  fastify.addContentTypeParser(FORM_TYPE, (req, payload, done) => {
    const body = declarationOf(req)?.body;
    if (body?.kind !== 'form') return done(framework('Unsupported Media Type', 415, 'FST_ERR_CTP_INVALID_MEDIA_TYPE'), undefined);
    readForm(payload, body.maxBytes).then(
      (form) => done(null, form),
      (err: Error) => done(err, undefined),
    );
  });
  // In a context of its own under the assets' prefix (a prefix passed to the plugin itself would be applied twice).
  declareRoutesOf(fastify, ASSET_FILES, () =>
    fastify.register(
      async (assets) => {
        // Loaded here, when the HTTP app is built: the CLI imports the console context and never serves a file.
        const { default: fastifyStatic } = await import('@fastify/static');
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
  // Attached to the console's own routes as they are registered: no other route runs them.
  fastify.addHook('onRoute', (route) => {
    const declaration = (route.config as Record<string, unknown> | undefined)?.[ROUTE_DECLARATION] as RouteDeclaration | undefined;
    if (!declaration?.browser) return;
    route.onSend = [...[route.onSend ?? []].flat(), browserAnswer(views)];
    const methods = [route.method].flat();
    if (declaration.access.kind === 'console' && methods.some(changesState))
      route.preHandler = [...[route.preHandler ?? []].flat(), csrfStage];
  });
}
