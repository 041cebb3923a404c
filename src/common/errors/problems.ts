import { IDEMPOTENCY_KEY_KEPT_TEXT } from '../http/idempotency-key-header.js';
import { DomainError } from './domain-error.js';

/** A parameter or body member is wrong; `param` names the first one. */
export class InvalidRequestError extends DomainError {
  readonly code = 'invalid_request' as const;
  constructor(detail: string, param?: string, extra: Record<string, unknown> = {}) {
    super(detail, param ? { param, ...extra } : extra);
  }
  get param(): string | undefined {
    return this.extra.param as string | undefined;
  }
}

/** No key, or one that is malformed, unknown, revoked or expired. */
export class UnauthorizedError extends DomainError {
  readonly code = 'unauthorized' as const;
  constructor(detail = 'Send a valid API key as "Authorization: Bearer svc_live_...".') {
    super(detail);
  }
}

/** The key lacks the endpoint's scope. */
export class InsufficientScopeError extends DomainError {
  readonly code = 'insufficient_scope' as const;
  constructor(scope: string) {
    super(`This endpoint needs the "${scope}" scope, which this API key does not have.`, { required_scope: scope });
  }
}

/** A live key on a route that acts only on test data (the test helpers). */
export class TestModeOnlyError extends DomainError {
  readonly code = 'test_mode_only' as const;
  constructor() {
    super('This endpoint works only in test mode: send a test key (svc_test_...). A live key never creates or changes test data.');
  }
}

/** No such thing for this firm (another firm's ids answer the same way). */
export class NotFoundError extends DomainError {
  readonly code = 'not_found' as const;
  constructor(what: string, detail = `${what} was not found.`) {
    super(detail);
  }
}

/** The route does not answer this method; `allow` lists the methods it does. */
export class MethodNotAllowedError extends DomainError {
  readonly code = 'method_not_allowed' as const;
  constructor(detail: string, allow?: string) {
    super(detail, {}, allow ? { Allow: allow } : {});
  }
}

/** The receptionist settings were never published. */
export class NotPublishedError extends DomainError {
  readonly code = 'not_published' as const;
  constructor(detail = 'The receptionist settings have never been published; publish them in the dashboard first.') {
    super(detail);
  }
}

/** The lead is not at the expected status, or changed while the request was handled. */
export class StatusConflictError extends DomainError {
  readonly code = 'status_conflict' as const;
  constructor(detail: string, extra: Record<string, unknown>) {
    super(detail, extra);
  }
}

/** The webhook endpoint is turned off. */
export class EndpointDisabledError extends DomainError {
  readonly code = 'endpoint_disabled' as const;
  constructor(detail: string, extra: Record<string, unknown>) {
    super(detail, extra);
  }
}

/** A request with the same Idempotency-Key (and key) is still being processed; retry after `retry_after` seconds. */
export class IdempotencyKeyInUseError extends DomainError {
  readonly code = 'idempotency_key_in_use' as const;
  constructor(retryAfterSeconds: number) {
    super(`A request with this Idempotency-Key is still being processed; retry in ${retryAfterSeconds} s to get its answer.`, {
      retry_after: retryAfterSeconds,
    });
  }
}

/** The Idempotency-Key was first used with another route or body: its stored answer is not this request's. */
export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'idempotency_key_reused' as const;
  constructor() {
    super(
      `This Idempotency-Key was already used with another route or body (keys are kept ${IDEMPOTENCY_KEY_KEPT_TEXT} per API key); send a new key for a new request.`,
    );
  }
}

/** The body is over the route's limit. */
export class PayloadTooLargeError extends DomainError {
  readonly code = 'payload_too_large' as const;
  constructor(detail = 'The request body is too large.', extra: Record<string, unknown> = {}) {
    super(detail, extra);
  }
}

/** The body's content type is not one the route reads. */
export class UnsupportedMediaTypeError extends DomainError {
  readonly code = 'unsupported_media_type' as const;
  constructor(detail: string, headers: Record<string, string> = {}) {
    super(detail, {}, headers);
  }
}

/** Over the key's rate; `retry_after` is the exact wait in seconds. */
export class RateLimitedError extends DomainError {
  readonly code = 'rate_limited' as const;
  constructor(retryAfterSeconds: number, detail: string) {
    super(detail, { retry_after: retryAfterSeconds });
  }
}

/** The database cannot be reached right now. */
export class ServiceUnavailableError extends DomainError {
  readonly code = 'service_unavailable' as const;
  constructor(detail = 'The database cannot be reached. Try again shortly.', options?: { cause?: unknown }) {
    super(detail, {}, {}, options);
  }
}

/** Our fault. Only the error id reaches the client; the cause is logged once. */
export class InternalError extends DomainError {
  readonly code = 'internal_error' as const;
  constructor(
    readonly errorId: string,
    detail = 'Something went wrong on our side. Quote error_id when contacting support.',
    options?: { cause?: unknown },
  ) {
    super(detail, { error_id: errorId }, {}, options);
  }
}

/** A console page without a live console session (none, ended, signed out): sign in through a new link. */
export class ConsoleSignInRequiredError extends DomainError {
  readonly code = 'console_sign_in_required' as const;
  constructor(detail = 'Your console session has ended or was never started. Ask for a new console link.') {
    super(detail);
  }
}

/** A state-changing request of a read-only console session (`console link --read-only`): it may look, not change. */
export class ConsoleReadOnlyError extends DomainError {
  readonly code = 'console_read_only' as const;
  constructor(detail = 'This console session is read-only: it shows everything and changes nothing; nothing was changed.') {
    super(detail);
  }
}

/** A state-changing console request that did not come from the console's own page (its Origin or CSRF token). */
export class CsrfRefusedError extends DomainError {
  readonly code = 'csrf_refused' as const;
  constructor(detail: string) {
    super(detail);
  }
}
