import { SpanStatusCode } from '@opentelemetry/api';
import { traceparentOf, type Span } from '../common/tracing/tracing.js';
import type { AttemptResult } from './delivery-rules.js';
import type { ClaimedDelivery } from './delivery-claims.repository.js';

/** What identifies an attempt in a trace: ids only, never the endpoint's URL (it may carry a token) or its secret. */
export function attemptSpanAttributes(c: ClaimedDelivery): Record<string, string | number> {
  return {
    'app.firm.id': c.orgId,
    'app.event.id': c.eventId,
    'app.event.type': c.eventType,
    'app.webhook.endpoint.id': c.endpointId,
    'app.webhook.delivery.id': c.id,
    'app.webhook.delivery.attempt': c.attemptCount + 1,
    'app.webhook.delivery.trigger': c.trigger,
  };
}

/** The attempt's span as the POST's `traceparent`, so the receiver can join the trace (tracing off: none). */
export function traceHeaders(span: Span | null): Record<string, string> {
  const traceparent = traceparentOf(span);
  return traceparent ? { traceparent } : {};
}

export function recordAttemptOnSpan(span: Span | null, result: AttemptResult): void {
  if (!span) return;
  if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 && result.error === null;
  // The error is the attempt's fixed vocabulary (timeout, refused connection...), never a response body.
  if (!ok) span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? `status ${result.statusCode}` });
}
