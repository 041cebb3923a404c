import { randomUUID } from 'node:crypto';
import { LoggerModule } from 'nestjs-pino';
import pino from 'pino';
import type { AppConfig } from '../../config/app-config.js';

/** Paths that carry a credential in the URL itself (any letter case: a mistyped path can carry it too). */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(/(\/v1\/recordings\/)[^/?#]+/i, '$1[REDACTED]');
}

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-internal-token"]',
  'res.headers["set-cookie"]',
  '*.secret',
  '*.key',
  '*.token',
  '*.password',
  '*.authorization',
];

/**
 * JSON request logs with a request id. Secrets never reach a log line:
 * headers and secret-named members are redacted, and recording-link tokens
 * are cut out of logged URLs.
 */
export function loggerModule(config: AppConfig, toStderr = false, stream?: NodeJS.WritableStream) {
  return LoggerModule.forRoot({
    pinoHttp: [
      {
        level: config.logLevel,
        redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
        // Fastify assigns the id (see create-app.ts); reuse it so logs and error bodies agree.
        genReqId: (req) => (req as { id?: string }).id ?? randomUUID(),
        serializers: {
          req: (req) => ({ id: req.id, method: req.method, url: redactUrl(req.url), user_agent: req.headers?.['user-agent'] }),
          res: (res) => ({ statusCode: res.statusCode }),
        },
        customProps: () => ({ service: 'receptionist-api' }),
        autoLogging: { ignore: (req) => req.url === '/health/ready' },
        quietReqLogger: true,
      },
      stream ?? pino.destination(toStderr ? 2 : 1),
    ],
    forRoutes: ['*path'],
  });
}
