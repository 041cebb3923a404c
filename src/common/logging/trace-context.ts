import { hasCredentialShape } from './redact.js';
import type { SecretValues } from './secret-values.js';

/** The ids of a W3C traceparent header (https://www.w3.org/TR/trace-context/#traceparent-header). */
export interface TraceContext {
  trace_id: string;
  span_id: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;

/**
 * Parses a traceparent header per the W3C format, or null when it is absent or
 * invalid: version ff is forbidden, all-zero ids are invalid, and version 00
 * carries exactly four fields (later versions may append more).
 */
export function parseTraceparent(header: string | string[] | undefined): TraceContext | null {
  if (typeof header !== 'string' || header.length > 512) return null;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return null;
  const [, version, traceId, spanId, , rest] = m;
  if (version === 'ff' || ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return null;
  if (version === '00' && rest !== undefined) return null;
  return { trace_id: traceId, span_id: spanId };
}

const PLAIN_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * An incoming x-request-id is kept only when short and plain, so it cannot forge or bloat log lines, when it has no
 * credential's shape (redact.ts) and holds none of the secrets the service is configured with (secret-values.ts):
 * the id is written in every log line, every error body and the request's span, so a key or a token sent as one
 * would be copied everywhere.
 */
export function acceptRequestId(header: string | string[] | undefined, secrets?: SecretValues): string | null {
  if (typeof header !== 'string' || !PLAIN_REQUEST_ID.test(header) || hasCredentialShape(header)) return null;
  return secrets?.holdsOne(header) ? null : header;
}
