import { IDEMPOTENCY_KEY_KEPT_TEXT } from '../http/idempotency-key-header.js';
import { KernelError } from './error-codes.js';

/** A parameter or body member is wrong; `param` names the first one. */
export class InvalidRequestError extends KernelError {
  readonly code = 'invalid_request' as const;
  constructor(detail: string, param?: string, extra: Record<string, unknown> = {}) {
    super(detail, param ? { param, ...extra } : extra);
  }
  get param(): string | undefined {
    return this.extra.param as string | undefined;
  }
}

/** No key, or one that is malformed, unknown, revoked or expired. */
export class UnauthorizedError extends KernelError {
  readonly code = 'unauthorized' as const;
  constructor(detail = 'Send a valid API key as "Authorization: Bearer svc_live_...".') {
    super(detail);
  }
}

/** The key lacks the endpoint's scope. */
export class InsufficientScopeError extends KernelError {
  readonly code = 'insufficient_scope' as const;
  constructor(scope: string) {
    super(`This endpoint needs the "${scope}" scope, which this API key does not have.`, { required_scope: scope });
  }
}

/** A live key on a route that acts only on test data (the test helpers). */
export class TestModeOnlyError extends KernelError {
  readonly code = 'test_mode_only' as const;
  constructor() {
    super('This endpoint works only in test mode: send a test key (svc_test_...). A live key never creates or changes test data.');
  }
}

/** No such thing for this firm (another firm's ids answer the same way). */
export class NotFoundError extends KernelError {
  readonly code = 'not_found' as const;
  constructor(what: string, detail = `${what} was not found.`) {
    super(detail);
  }
}

/** The route does not answer this method; `allow` lists the methods it does. */
export class MethodNotAllowedError extends KernelError {
  readonly code = 'method_not_allowed' as const;
  constructor(detail: string, allow?: string) {
    super(detail, {}, allow ? { Allow: allow } : {});
  }
}

/** A request with the same Idempotency-Key (and key) is still being processed; retry after `retry_after` seconds. */
export class IdempotencyKeyInUseError extends KernelError {
  readonly code = 'idempotency_key_in_use' as const;
  constructor(retryAfterSeconds: number) {
    super(`A request with this Idempotency-Key is still being processed; retry in ${retryAfterSeconds} s to get its answer.`, {
      retry_after: retryAfterSeconds,
    });
  }
}

/** The Idempotency-Key was first used with another route or body: its stored answer is not this request's. */
export class IdempotencyKeyReusedError extends KernelError {
  readonly code = 'idempotency_key_reused' as const;
  constructor() {
    super(
      `This Idempotency-Key was already used with another route or body (keys are kept ${IDEMPOTENCY_KEY_KEPT_TEXT} per API key); send a new key for a new request.`,
    );
  }
}

/** The body is over the route's limit. */
export class PayloadTooLargeError extends KernelError {
  readonly code = 'payload_too_large' as const;
  constructor(detail = 'The request body is too large.', extra: Record<string, unknown> = {}) {
    super(detail, extra);
  }
}

/** The body's content type is not one the route reads. */
export class UnsupportedMediaTypeError extends KernelError {
  readonly code = 'unsupported_media_type' as const;
  constructor(detail: string, headers: Record<string, string> = {}) {
    super(detail, {}, headers);
  }
}

/** Over the key's rate; `retry_after` is the exact wait in seconds. */
export class RateLimitedError extends KernelError {
  readonly code = 'rate_limited' as const;
  constructor(retryAfterSeconds: number, detail: string) {
    super(detail, { retry_after: retryAfterSeconds });
  }
}

/** The database cannot be reached right now. */
export class ServiceUnavailableError extends KernelError {
  readonly code = 'service_unavailable' as const;
  constructor(detail = 'The database cannot be reached. Try again shortly.', options?: { cause?: unknown }) {
    super(detail, {}, {}, options);
  }
}

/** Our fault. Only the error id reaches the client; the cause is logged once. */
export class InternalError extends KernelError {
  readonly code = 'internal_error' as const;
  constructor(
    readonly errorId: string,
    detail = 'Something went wrong on our side. Quote error_id when contacting support.',
    options?: { cause?: unknown },
  ) {
    super(detail, { error_id: errorId }, {}, options);
  }
}

/** A state-changing console request that did not come from the console's own page (its Origin or CSRF token). */
export class CsrfRefusedError extends KernelError {
  readonly code = 'csrf_refused' as const;
  constructor(detail: string) {
    super(detail);
  }
}
