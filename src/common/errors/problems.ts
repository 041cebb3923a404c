import { ApiError } from './api-error.js';

/** 400: a parameter or body member is wrong; `param` names the first one. */
export class InvalidRequestError extends ApiError {
  readonly status = 400;
  readonly code = 'invalid_request' as const;
  constructor(detail: string, param?: string, extra: Record<string, unknown> = {}) {
    super(detail, param ? { param, ...extra } : extra);
  }
  get param(): string | undefined {
    return this.extra.param as string | undefined;
  }
}

/** 401: no key, or one that is malformed, unknown, revoked or expired. */
export class UnauthorizedError extends ApiError {
  readonly status = 401;
  readonly code = 'unauthorized' as const;
  constructor(detail = 'Send a valid API key as "Authorization: Bearer svc_live_...".') {
    super(detail, {}, { 'WWW-Authenticate': 'Bearer' });
  }
}

/** 403: the key lacks the endpoint's scope. */
export class InsufficientScopeError extends ApiError {
  readonly status = 403;
  readonly code = 'insufficient_scope' as const;
  constructor(scope: string) {
    super(`This endpoint needs the "${scope}" scope, which this API key does not have.`, { required_scope: scope });
  }
}

/** 404: no such thing for this firm (another firm's ids answer the same way). */
export class NotFoundError extends ApiError {
  readonly status = 404;
  readonly code = 'not_found' as const;
  constructor(what: string, detail = `${what} was not found.`) {
    super(detail);
  }
}

/** 405, with the methods the route does answer. */
export class MethodNotAllowedError extends ApiError {
  readonly status = 405;
  readonly code = 'method_not_allowed' as const;
  constructor(detail: string, allow?: string) {
    super(detail, {}, allow ? { Allow: allow } : {});
  }
}

/** 409: the receptionist settings were never published. */
export class NotPublishedError extends ApiError {
  readonly status = 409;
  readonly code = 'not_published' as const;
  constructor(detail = 'The receptionist settings have never been published; publish them in the dashboard first.') {
    super(detail);
  }
}

/** 409: the lead is not at the expected status, or changed while the request was handled. */
export class StatusConflictError extends ApiError {
  readonly status = 409;
  readonly code = 'status_conflict' as const;
  constructor(detail: string, extra: Record<string, unknown>) {
    super(detail, extra);
  }
}

/** 409: the webhook endpoint is turned off. */
export class EndpointDisabledError extends ApiError {
  readonly status = 409;
  readonly code = 'endpoint_disabled' as const;
  constructor(detail: string, extra: Record<string, unknown>) {
    super(detail, extra);
  }
}

/** 413 */
export class PayloadTooLargeError extends ApiError {
  readonly status = 413;
  readonly code = 'payload_too_large' as const;
  constructor(detail = 'The request body is too large.', extra: Record<string, unknown> = {}) {
    super(detail, extra);
  }
}

/** 415 */
export class UnsupportedMediaTypeError extends ApiError {
  readonly status = 415;
  readonly code = 'unsupported_media_type' as const;
  constructor(detail: string, headers: Record<string, string> = {}) {
    super(detail, {}, headers);
  }
}

/** 429, with the exact wait in Retry-After. */
export class RateLimitedError extends ApiError {
  readonly status = 429;
  readonly code = 'rate_limited' as const;
  constructor(retryAfterSeconds: number, detail: string) {
    super(detail, { retry_after: retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** 503: the database cannot be reached right now. */
export class ServiceUnavailableError extends ApiError {
  readonly status = 503;
  readonly code = 'service_unavailable' as const;
  constructor(detail = 'The database cannot be reached. Try again shortly.', options?: { cause?: unknown }) {
    super(detail, {}, { 'Retry-After': '5' }, options);
  }
}

/** 500: our fault. Only the error id reaches the client; the cause is logged once. */
export class InternalError extends ApiError {
  readonly status = 500;
  readonly code = 'internal_error' as const;
  constructor(
    readonly errorId: string,
    detail = 'Something went wrong on our side. Quote error_id when contacting support.',
    options?: { cause?: unknown },
  ) {
    super(detail, { error_id: errorId }, {}, options);
  }
}
