/**
 * Every error the API answers with is one of these. `code` is the stable,
 * machine-readable contract; `title` and `detail` are for people.
 */
export const ERROR_CODES = {
  invalid_request: 'The request is not valid.',
  unauthorized: 'Missing or unusable API key.',
  insufficient_scope: 'The API key lacks the scope this endpoint needs.',
  not_found: 'Not found.',
  method_not_allowed: 'Method not allowed.',
  not_published: 'The receptionist settings have never been published.',
  status_conflict: 'The lead changed since it was read.',
  endpoint_disabled: 'The webhook endpoint is turned off.',
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'The request body has the wrong content type.',
  rate_limited: 'Too many requests.',
  service_unavailable: 'The service is temporarily unavailable.',
  internal_error: 'Internal error.',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly detail: string,
    /** Extra members of the problem document (e.g. `param`, `lead`). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
  get title(): string {
    return ERROR_CODES[this.code];
  }
}

export const badRequest = (detail: string, param?: string, extra: Record<string, unknown> = {}) =>
  new ApiError(400, 'invalid_request', detail, param ? { param, ...extra } : extra);
export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} was not found.`);
export const unauthorized = (detail = 'Send a valid API key as "Authorization: Bearer svc_live_...".') =>
  new ApiError(401, 'unauthorized', detail, {}, { 'WWW-Authenticate': 'Bearer' });
export const insufficientScope = (scope: string) =>
  new ApiError(403, 'insufficient_scope', `This endpoint needs the "${scope}" scope, which this API key does not have.`, {
    required_scope: scope,
  });
export const rateLimited = (retryAfterSeconds: number, detail: string) =>
  new ApiError(429, 'rate_limited', detail, { retry_after: retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
export const serviceUnavailable = (detail = 'The database cannot be reached. Try again shortly.') =>
  new ApiError(503, 'service_unavailable', detail, {}, { 'Retry-After': '5' });
