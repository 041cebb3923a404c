import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pino from 'pino';
import { PRINCIPAL, type ApiPrincipal } from '../http/principal.js';
import { credentialParams, declarationOf, matchedRoute } from '../http/route-declaration.js';
import { redactDeclaredUrl, redactHeaderValue, redactUnmatchedUrl, redactUrl } from './redact.js';
import { parseTraceparent } from './trace-context.js';
import { requestSpanIds } from '../tracing/http-spans.js';

/**
 * The URL as logged, by what the route declares: a route with credentials is
 * rebuilt from its template with them replaced; a request that matched no
 * route loses every long run (it may be a mistyped link); any other keeps
 * its URL with credential shapes and sensitive query values replaced.
 */
function loggedUrl(req: FastifyRequest): string | undefined {
  if (!matchedRoute(req)) return redactUnmatchedUrl(req.url);
  const d = declarationOf(req);
  const secretParams = d ? credentialParams(d) : [];
  if (!d?.template || (secretParams.length === 0 && d.credentialQuery.length === 0)) return redactUrl(req.url);
  return redactDeclaredUrl(req.url, {
    template: d.template,
    params: (req.params ?? {}) as Record<string, string>,
    credentialParams: secretParams,
    credentialQuery: d.credentialQuery,
  });
}

function accessLine(req: FastifyRequest, reply: FastifyReply): Record<string, unknown> {
  const principal = (req as unknown as Record<symbol, ApiPrincipal | undefined>)[PRINCIPAL];
  return {
    req: { id: req.id, method: req.method, url: loggedUrl(req), user_agent: redactHeaderValue(req.headers['user-agent']) },
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
  fastify.addHook('onResponse', (req, reply, done) => {
    // Probes poll often and say nothing new: their routes declare a quiet log.
    if (!declarationOf(req)?.quietLog && logger.isLevelEnabled('info')) logger.info(accessLine(req, reply), 'request completed');
    done();
  });
}
