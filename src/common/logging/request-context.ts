import type { FastifyInstance } from 'fastify';
import type { PinoLogger } from 'nestjs-pino';

/**
 * Every application log line written while a request is handled carries its
 * id as `reqId` (the access line has it as `req.id`): the rest of the request
 * runs inside nestjs-pino's logging context, bound to a child logger. A
 * callback hook, so that context holds across every later hook and the handler.
 */
export function bindRequestIdToLogs(fastify: FastifyInstance, logger: PinoLogger): void {
  fastify.addHook('onRequest', (req, _reply, done) => {
    logger.runInContext(() => done(), { bindings: { reqId: req.id } });
  });
}
