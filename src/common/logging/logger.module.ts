import { type DynamicModule, Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import pino from 'pino';
import type { AppConfig } from '../../config/app-config.js';
import { SECRET_HEADERS } from './redact.js';
import { secretValuesOf } from './secret-values.js';

export { redactUrl } from './redact.js';

/** The pino instance the access log (a Fastify hook, see access-log.ts) writes through. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

export const REDACT_PATHS = [
  ...SECRET_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `res.headers["${h}"]`]),
  '*.secret',
  '*.key',
  '*.token',
  '*.password',
  '*.authorization',
];

/**
 * One JSON line per log call, to stdout (stderr for the CLI, a stream in tests). Every line, whatever wrote it, loses
 * the values of the secrets the service is configured with (a request can carry one anywhere: secret-values.ts).
 */
export function createRootLogger(config: AppConfig, toStderr = false, stream?: NodeJS.WritableStream): pino.Logger {
  const secrets = secretValuesOf(config);
  return pino(
    {
      level: config.logLevel,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      base: { service: 'receptionist-api' },
      ...(secrets.empty ? {} : { hooks: { streamWrite: (line: string) => secrets.redactLine(line) } }),
    },
    stream ?? pino.destination(toStderr ? 2 : 1),
  );
}

@Global()
@Module({})
class RootLoggerModule {}

/**
 * Nest's logger is pino. Request logging is not a Nest middleware (it cost about
 * 5% of CPU): Fastify's onResponse hook writes the access line (access-log.ts).
 */
export function loggerModule(config: AppConfig, toStderr = false, stream?: NodeJS.WritableStream): DynamicModule {
  const logger = createRootLogger(config, toStderr, stream);
  return {
    module: RootLoggerModule,
    imports: [LoggerModule.forRoot({ pinoHttp: { logger, autoLogging: false, quietReqLogger: true }, forRoutes: [] })],
    providers: [{ provide: ROOT_LOGGER, useValue: logger }],
    exports: [ROOT_LOGGER, LoggerModule],
  };
}
