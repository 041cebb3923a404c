import { errorsOf, type DomainError, type ErrorCodes } from './domain-error.js';

const retryAfter = (e: DomainError) => ({ 'Retry-After': String(e.extra.retry_after) });

/**
 * The kernel's problem codes: those of the HTTP layer, access, idempotency and outages, which any context may
 * answer. A context's own refusals are in its `<context>.errors.ts` (leads' `status_conflict`, webhooks'
 * `endpoint_disabled`, ...). `code` is the stable, machine-readable contract (HTTP answers and the CLI's both read
 * it); `title` is for people; `status` is the HTTP answer. Add codes, never rename one.
 */
export const ERROR_CODES = {
  invalid_request: { title: 'The request is not valid.', status: 400 },
  unauthorized: { title: 'Missing or unusable API key.', status: 401, headers: () => ({ 'WWW-Authenticate': 'Bearer' }) },
  insufficient_scope: { title: 'The API key lacks the scope this endpoint needs.', status: 403 },
  test_mode_only: { title: 'This endpoint takes only a test-mode API key.', status: 403 },
  not_found: { title: 'Not found.', status: 404 },
  method_not_allowed: { title: 'Method not allowed.', status: 405 },
  idempotency_key_in_use: { title: 'A request with this Idempotency-Key is still being processed.', status: 409, headers: retryAfter },
  idempotency_key_reused: { title: 'This Idempotency-Key was used for another request.', status: 422 },
  payload_too_large: { title: 'The request body is too large.', status: 413 },
  unsupported_media_type: { title: 'The request body has the wrong content type.', status: 415 },
  rate_limited: { title: 'Too many requests.', status: 429, headers: retryAfter },
  csrf_refused: { title: "The request did not come from the console's own page.", status: 403 },
  service_unavailable: { title: 'The service is temporarily unavailable.', status: 503, headers: () => ({ 'Retry-After': '5' }) },
  internal_error: { title: 'Internal error.', status: 500 },
} as const satisfies ErrorCodes;
export type ErrorCode = keyof typeof ERROR_CODES;

/** The base of the kernel's errors (problems.ts). */
export const KernelError = errorsOf(ERROR_CODES);
