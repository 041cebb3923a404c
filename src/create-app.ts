import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import type pino from 'pino';
import { AppModule, type AppModuleOptions } from './app.module.js';
import { registerAccessLog } from './common/logging/access-log.js';
import { ROOT_LOGGER } from './common/logging/logger.module.js';
import { acceptRequestId } from './common/logging/trace-context.js';
import { ProblemFilter } from './common/errors/problem.filter.js';
import { apiValidationPipe } from './common/validation/validation.pipe.js';
import { mountOpenApi } from './openapi.js';
import { configureRecordingsHttp } from './recordings/index.js';

/** Builds the HTTP application (not yet listening); used by main and by the e2e tests alike. */
export async function createApp(opts: AppModuleOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    // Fastify would answer HEAD for every GET by itself; HEAD is refused explicitly where the spec says so.
    exposeHeadRoutes: false,
    trustProxy: true,
    bodyLimit: 8 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // One id per request, in the logs, the x-request-id header and every error body; a caller's
    // x-request-id is kept only when short and plain.
    requestIdHeader: false,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) =>
      acceptRequestId(req.headers['x-request-id']) ?? randomUUID(),
  } as ConstructorParameters<typeof FastifyAdapter>[0]);
  adapter.getInstance().addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  // Bodies are accepted only in the content types the document lists: JSON everywhere (Fastify's own
  // parser), audio/ogg on the recording upload. Nest's parsers (which add form bodies) stay off.
  adapter.getInstance().removeContentTypeParser('text/plain');
  // audio/ogg uploads stream through unbuffered; recording links never carry CORS headers.
  configureRecordingsHttp(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(opts), adapter, {
    bufferLogs: true,
    abortOnError: false,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  registerAccessLog(adapter.getInstance(), app.get<pino.Logger>(ROOT_LOGGER));
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(apiValidationPipe());
  mountOpenApi(app, opts.config);
  return app;
}
