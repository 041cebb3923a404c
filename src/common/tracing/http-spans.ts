import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SpanStatusCode } from '@opentelemetry/api';
import { PRINCIPAL, type ApiPrincipal } from '../http/principal.js';
import { SpanKind, type Span, type Tracing } from './tracing.js';

const REQUEST_SPAN = Symbol('requestSpan');
const ENDED = Symbol('requestSpanEnded');

type TracedRequest = FastifyRequest & { [REQUEST_SPAN]?: Span; [ENDED]?: true };

/** `GET /v1/leads/:lead_id`: the route template, never the URL (a recording link's token is in its path). */
function spanName(req: FastifyRequest): string {
  const route = req.routeOptions.url;
  return route ? `${req.method} ${route}` : req.method;
}

function endRequestSpan(req: TracedRequest, reply: FastifyReply | null): void {
  const span = req[REQUEST_SPAN];
  if (!span || req[ENDED]) return;
  req[ENDED] = true;
  const principal = (req as unknown as Record<symbol, ApiPrincipal | undefined>)[PRINCIPAL];
  // The firm and the key id, never the key; no header and no URL is recorded.
  if (principal) span.setAttributes({ 'app.firm.id': principal.orgId, 'app.api_key.id': principal.keyId });
  if (reply) {
    span.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  } else {
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'request aborted' });
  }
  span.end();
}

/**
 * A server span per request, continuing an incoming `traceparent`, active for every later hook and the
 * handler (a callback hook: the async context holds from `done` on), so SQL and outbox spans are its
 * children. Registered only when tracing is on: off, no hook exists at all.
 */
export function traceRequests(fastify: FastifyInstance, tracing: Tracing): void {
  if (!tracing.enabled) return;
  fastify.addHook('onRequest', (req, _reply, done) => {
    const route = req.routeOptions.url;
    const incoming = req.headers.traceparent;
    const span = tracing.startSpan(spanName(req), {
      kind: SpanKind.SERVER,
      parent: typeof incoming === 'string' ? incoming : null,
      attributes: { 'http.request.method': req.method, ...(route ? { 'http.route': route } : {}), 'app.request.id': req.id },
    });
    (req as TracedRequest)[REQUEST_SPAN] = span;
    tracing.runIn(span, () => done());
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    endRequestSpan(req as TracedRequest, reply);
    done();
  });
  fastify.addHook('onRequestAbort', (req, done) => {
    endRequestSpan(req as TracedRequest, null);
    done();
  });
}

/** The request's own span ids for its access line (tracing on), so the logged trace_id is the exported one. */
export function requestSpanIds(req: FastifyRequest): { trace_id: string; span_id: string } | null {
  const span = (req as TracedRequest)[REQUEST_SPAN];
  if (!span) return null;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
