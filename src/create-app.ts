import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger, PinoLogger } from 'nestjs-pino';
import type pino from 'pino';
import { AppModule, type AppModuleOptions } from './app.module.js';
import { ApiKeyService, ConcurrentRequests, installEarlyAuth, limitConcurrentRequests } from './auth/index.js';
import { ConsoleGate, ConsoleHttp } from './console/index.js';
import { clientErrorHandler } from './common/errors/client-errors.js';
import { ProblemFilter, sendProblem } from './common/errors/problem.filter.js';
import { NotFoundError } from './common/errors/problems.js';
import { DatabaseOutage } from './common/ops/database-outage.js';
import { installStrictJsonParser } from './common/validation/json-body.js';
import { registerAccessLog } from './common/logging/access-log.js';
import { ROOT_LOGGER } from './common/logging/logger.module.js';
import { bindRequestIdToLogs } from './common/logging/request-context.js';
import { acceptRequestId } from './common/logging/trace-context.js';
import { secretValuesOf } from './common/logging/secret-values.js';
import { traceRequests } from './common/tracing/http-spans.js';
import { Tracing } from './common/tracing/tracing.js';
import { endConnectionsOnceDrained } from './common/http/drain-connections.js';
import { LINGER_MAX_MS, LingeringClose } from './common/http/lingering-close.js';
import { applyRequestDeadline } from './common/http/request-deadline.js';
import { answerUnroutedRequests, closeInStagesAfterEarlyAnswers, holdContinue } from './common/http/unread-bodies.js';
import { installCompression } from './common/http/compression.js';
import { installEntityTags } from './common/http/entity-tags.js';
import { DOCUMENT_FILES } from './common/http/access.decorators.js';
import { declareRoutesOf, installRouteTable } from './common/http/route-table.js';
import { apiValidationPipe } from './common/validation/validation.pipe.js';
import { mountOpenApi } from './openapi.js';
import { configureRecordingsHttp } from './recordings/index.js';

/** Fastify's own options: limits, timeouts, routing and request ids. */
function fastifyOptions(opts: AppModuleOptions): ConstructorParameters<typeof FastifyAdapter>[0] {
  const secrets = secretValuesOf(opts.config);
  return {
    // Fastify would answer HEAD for every GET by itself; HEAD is refused explicitly where the spec says so.
    exposeHeadRoutes: false,
    trustProxy: true,
    // Each route's declaration sets its own limit (route-table.ts); this one is for a request no declared body fits.
    bodyLimit: 16 * 1024,
    // A stalled client is cut off by inactivity: the socket closes after HTTP_IDLE_TIMEOUT_MS without a byte. A whole
    // request must also arrive within HTTP_REQUEST_TIMEOUT_MS (request-deadline.ts), except a recording upload: a
    // slow but moving 256 MiB upload is never cut.
    connectionTimeout: opts.config.httpIdleTimeoutMs,
    requestTimeout: opts.config.httpRequestTimeoutMs,
    keepAliveTimeout: 72_000,
    // While draining, requests are answered 503 problem+json with Retry-After (drain-connections.ts), not Fastify's bare JSON.
    return503OnClosing: false,
    // Any id the request line can carry (Node bounds it at 16 KiB) reaches its route, whose declared path-id rule answers
    // 404 exactly as for an unknown id; a shorter limit made Fastify answer 414 and echo the URL.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
    // A path that cannot be percent-decoded (invalid UTF-8) names nothing: 404 like an unknown id, never the URL echoed.
    frameworkErrors: (_error: unknown, req: { id: string }, reply: Parameters<typeof sendProblem>[0]) =>
      sendProblem(reply, req.id, new NotFoundError('The resource')),
    // Errors Node raises before there is a request (431 for a URL or headers over 16 KiB) answer problem+json too.
    clientErrorHandler,
    // One id per request, in the logs, the x-request-id header and every error body; a caller's
    // x-request-id is kept only when short and plain, and holds no credential and no configured secret.
    requestIdHeader: false,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) =>
      acceptRequestId(req.headers['x-request-id'], secrets) ?? randomUUID(),
  } as ConstructorParameters<typeof FastifyAdapter>[0];
}

/** Builds the HTTP application (not yet listening); used by main and by the e2e tests alike. */
export async function createApp(opts: AppModuleOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter(fastifyOptions(opts));
  // Connections answered before their body arrived close in stages, for at most the idle bound (lingering-close.ts).
  const lingering = new LingeringClose(Math.min(LINGER_MAX_MS, opts.config.httpIdleTimeoutMs));
  // Before any route is registered: every route's declaration is read as Fastify registers it.
  installRouteTable(adapter.getInstance());
  // `Expect: 100-continue` is answered by the onRequest stage once the request is admitted, not by Node at once.
  holdContinue(adapter.getInstance().server as Server);
  // First: a request that arrives while the server drains is answered 503 before any other hook runs.
  endConnectionsOnceDrained(adapter.getInstance(), lingering);
  // Synchronous hooks (here and in the other stages that do nothing on most requests): an async one costs a promise and a tick.
  adapter.getInstance().addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
  // Bodies are accepted only in the content types the document lists: JSON everywhere (Fastify's own
  // parser on strictly decoded UTF-8), audio/ogg on the recording upload. Nest's parsers (which add form bodies) stay off.
  adapter.getInstance().removeContentTypeParser('text/plain');
  installStrictJsonParser(adapter.getInstance());
  // audio/ogg uploads stream through unbuffered; recording links never carry CORS headers.
  configureRecordingsHttp(adapter.getInstance());
  // Before any route is registered (the plugin hooks each route as it is added); the Vary stage, then the entity tag
  // (taken from the uncompressed bytes, turning a 200 into 304), run as global onSend hooks before each route's compression.
  await installCompression(adapter.getInstance());
  installEntityTags(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(opts), adapter, {
    bufferLogs: true,
    abortOnError: false,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  // Before the early auth hooks, so the key lookup's SQL is a child of the request's span (tracing on).
  traceRequests(adapter.getInstance(), app.get(Tracing));
  // Before the early auth hooks, so their log lines carry the request id too.
  bindRequestIdToLogs(adapter.getInstance(), await app.resolve(PinoLogger));
  // A key's requests under way at once in this process, before its lookup (concurrent-requests.ts).
  limitConcurrentRequests(adapter.getInstance(), app.get(ConcurrentRequests));
  // The console's Fastify plugins (cookie, forms, security headers, CSRF) and browser files: before the early auth
  // hooks, so a console refusal answered there carries the security headers too.
  await app.get(ConsoleHttp).install(adapter.getInstance());
  installEarlyAuth(adapter.getInstance(), { keys: app.get(ApiKeyService), config: opts.config, console: app.get(ConsoleGate) });
  answerUnroutedRequests(adapter.getInstance());
  closeInStagesAfterEarlyAnswers(adapter.getInstance(), lingering);
  registerAccessLog(adapter.getInstance(), app.get<pino.Logger>(ROOT_LOGGER));
  app.useGlobalFilters(new ProblemFilter(app.get(DatabaseOutage)));
  app.useGlobalPipes(apiValidationPipe());
  applyRequestDeadline(app.getHttpServer(), opts.config.httpRequestTimeoutMs);
  declareRoutesOf(adapter.getInstance(), DOCUMENT_FILES, () => mountOpenApi(app, opts.config));
  return app;
}
