import type { DomainError } from './domain-error.js';
import { isErrorCode, type ErrorCode } from './error-codes.js';

interface HttpAnswer {
  status: number;
  /** Headers every answer with this code carries. */
  headers?: (e: DomainError) => Record<string, string>;
}

/** The one map from a problem code to its HTTP answer. */
export const HTTP_ANSWERS: Record<ErrorCode, HttpAnswer> = {
  invalid_request: { status: 400 },
  after_lost: { status: 400 },
  unauthorized: { status: 401, headers: () => ({ 'WWW-Authenticate': 'Bearer' }) },
  insufficient_scope: { status: 403 },
  test_mode_only: { status: 403 },
  not_found: { status: 404 },
  method_not_allowed: { status: 405 },
  not_published: { status: 409 },
  status_conflict: { status: 409 },
  endpoint_disabled: { status: 409 },
  idempotency_key_in_use: { status: 409, headers: (e) => ({ 'Retry-After': String(e.extra.retry_after) }) },
  idempotency_key_reused: { status: 422 },
  payload_too_large: { status: 413 },
  unsupported_media_type: { status: 415 },
  rate_limited: { status: 429, headers: (e) => ({ 'Retry-After': String(e.extra.retry_after) }) },
  console_sign_in_required: { status: 401 },
  csrf_refused: { status: 403 },
  console_read_only: { status: 403 },
  service_unavailable: { status: 503, headers: () => ({ 'Retry-After': '5' }) },
  internal_error: { status: 500 },
};

/** The status of a code; a code the table does not know is a 500 (the filter answers it as internal_error). */
export function httpStatus(code: string): number {
  return isErrorCode(code) ? HTTP_ANSWERS[code].status : 500;
}

/** The response headers of a refusal: its code's, then the ones the raising stage added. */
export function httpHeaders(e: DomainError): Record<string, string> {
  return { ...(isErrorCode(e.code) ? HTTP_ANSWERS[e.code].headers?.(e) : {}), ...e.headers };
}
