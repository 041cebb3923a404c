import type { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, unknown>;
type Response = { headers?: Record<string, unknown>; [k: string]: unknown };
type Operation = { security?: unknown[]; responses?: Record<string, Response> };

const header = (description: string, schema: Schema, example: unknown, required = true) => ({ description, required, schema, example });

/** Documented on every keyed answer; marked required once the rate limiter that sends them is in (see docs/decisions.md). */
const RATE_LIMIT_HEADERS_SENT = false;

/** The response headers the service sends, declared once and referenced from every response that carries them. */
export const RESPONSE_HEADERS = {
  RequestId: header(
    'Id of this request; quote it to support. Also `request_id` in error bodies.',
    { type: 'string' },
    '5b0c7f0e-2f1a-4d7e-9a51-0f3e2c1d4b6a',
  ),
  RateLimitPolicy: header(
    'The quota policy of this key (IETF draft httpapi-ratelimit-headers, a structured-field list), e.g. `"default";q=600;w=60`.',
    { type: 'string' },
    '"default";q=600;w=60',
    RATE_LIMIT_HEADERS_SENT,
  ),
  RateLimit: header(
    'What remains of the quota (IETF draft httpapi-ratelimit-headers): `r` requests left, `t` seconds until the window resets.',
    { type: 'string' },
    '"default";r=598;t=42',
    RATE_LIMIT_HEADERS_SENT,
  ),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }, 30),
  WwwAuthenticate: header('The authentication scheme to use: `Bearer`.', { type: 'string' }, 'Bearer'),
  Allow: header('The methods the path answers.', { type: 'string' }, 'GET'),
};

const ref = (name: keyof typeof RESPONSE_HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** Which headers a response of this status carries, besides the ones it already documents. */
function headersFor(status: string, keyed: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { 'x-request-id': ref('RequestId') };
  if (keyed && status !== '401') Object.assign(out, { 'RateLimit-Policy': ref('RateLimitPolicy'), RateLimit: ref('RateLimit') });
  if (status === '401') out['WWW-Authenticate'] = ref('WwwAuthenticate');
  if (status === '405') out.Allow = ref('Allow');
  if (status === '429' || status === '503') out['Retry-After'] = ref('RetryAfter');
  return out;
}

/**
 * Adds the headers every answer carries (x-request-id; on keyed operations the
 * rate-limit pair; WWW-Authenticate on 401, Allow on 405, Retry-After on 429
 * and 503) to every documented response, so no decorator can forget them.
 */
export function documentResponseHeaders(doc: OpenAPIObject): void {
  doc.components = { ...doc.components, headers: { ...doc.components?.headers, ...RESPONSE_HEADERS } };
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item as Record<string, Operation>)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const keyed = (op.security ?? []).length > 0;
      for (const [status, response] of Object.entries(op.responses)) {
        const { 'Retry-After': _drop, ...own } = response.headers ?? {};
        response.headers = { ...own, ...headersFor(status, keyed) };
      }
    }
  }
}
