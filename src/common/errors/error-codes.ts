/**
 * The problem codes of the service. `code` is the stable, machine-readable
 * contract (HTTP answers and the CLI's both read it); `title` and `detail` are
 * for people. Add codes, never rename one.
 */
export const ERROR_CODES = {
  invalid_request: 'The request is not valid.',
  after_lost: 'The event named by after is no longer in the log.',
  unauthorized: 'Missing or unusable API key.',
  insufficient_scope: 'The API key lacks the scope this endpoint needs.',
  test_mode_only: 'This endpoint takes only a test-mode API key.',
  not_found: 'Not found.',
  method_not_allowed: 'Method not allowed.',
  not_published: 'The receptionist settings have never been published.',
  status_conflict: 'The lead changed since it was read.',
  endpoint_disabled: 'The webhook endpoint is turned off.',
  idempotency_key_in_use: 'A request with this Idempotency-Key is still being processed.',
  idempotency_key_reused: 'This Idempotency-Key was used for another request.',
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'The request body has the wrong content type.',
  rate_limited: 'Too many requests.',
  console_sign_in_required: 'Sign in to the console through a new link.',
  csrf_refused: "The request did not come from the console's own page.",
  console_read_only: 'This console session can look but not change anything.',
  service_unavailable: 'The service is temporarily unavailable.',
  internal_error: 'Internal error.',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CODES, code);
