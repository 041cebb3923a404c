import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pino from 'pino';
import { PRINCIPAL, type ApiPrincipal } from '../http/principal.js';
import { redactUrl } from './redact.js';
import { parseTraceparent } from './trace-context.js';
import { requestSpanIds } from '../tracing/http-spans.js';

/** Probes poll often and say nothing new. */
const QUIET_URLS = new Set(['/health/ready']);

function accessLine(req: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  const principal = (req as unknown as Record<symbol, ApiPrincipal | undefined>)[PRINCIPAL];
  return {
    req: { id: req.id, method: req.method, url: redactUrl(req.url), user_agent: req.headers['user-agent'] },
    res: { statusCode: reply.statusCode },
    responseTime: Math.round(reply.elapsedTime * 1000) / 1000,
    // The firm and the key id (never the key) of an authenticated call.
    ...(principal ? { org_id: principal.orgId, key_id: principal.keyId } : {}),
    // Tracing on: the ids of the request's exported span (which continues a valid traceparent); off: the caller's.
    ...(requestSpanIds(req) ?? parseTraceparent(req.headers.traceparent)),
  };
}

/** One JSON access line per request, written by Fastify's onResponse hook once the answer has gone out. */
export function registerAccessLog(fastify: FastifyInstance, logger: pino.Logger): void {
  fastify.addHook('onResponse', async (req, reply) => {
    if (QUIET_URLS.has(req.url) || !logger.isLevelEnabled('info')) return;
    logger.info(accessLine(req, reply), 'request completed');
  });
}
