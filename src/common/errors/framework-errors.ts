import { randomUUID } from 'node:crypto';
import type { HttpException } from '@nestjs/common';
import type { DomainError } from './domain-error.js';
import {
  CsrfRefusedError,
  InsufficientScopeError,
  InternalError,
  InvalidRequestError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from './problems.js';

/** 404 for a method and path no route answers (Nest's NotFoundException for an unknown route). */
export const noSuchEndpoint = (): DomainError =>
  new NotFoundError('The endpoint', 'No such endpoint. Every path starts with /v1; see /v1/openapi.json.');

/** 405 for a method a path does not have; `allow` lists the methods it has (the Allow header). */
export const methodNotAllowed = (method: string, allow: string[]): DomainError =>
  new MethodNotAllowedError(`${method} is not allowed on this path; it answers ${allow.join(', ')}.`, allow.join(', '));

/** The typed problem for a status raised by Nest or Fastify rather than by our code. */
function forStatus(status: number, detail?: string): DomainError | null {
  switch (status) {
    case 400:
      return new InvalidRequestError(detail ?? 'The request is not valid.');
    case 401:
      return new UnauthorizedError();
    case 403:
      return new InsufficientScopeError('unknown');
    case 404:
      return noSuchEndpoint();
    case 405:
      return new MethodNotAllowedError('Method not allowed.');
    case 413:
      return new PayloadTooLargeError(detail);
    case 415:
      return new UnsupportedMediaTypeError(detail ?? 'The request body has the wrong content type.');
    case 429:
      return new RateLimitedError(1, 'Too many requests.');
    case 503:
      return new ServiceUnavailableError();
    default:
      if (status >= 400 && status < 500) return new InvalidRequestError(detail ?? 'The request is not valid.');
      return status >= 500 ? new InternalError(randomUUID()) : null;
  }
}

/** Nest's own HttpExceptions (an unknown route is its NotFoundException). */
export function fromHttpException(e: HttpException): DomainError | null {
  return forStatus(e.getStatus());
}

const BODY_ERRORS: Record<string, string> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The body is empty; send a JSON object.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content type; send application/json.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large.',
};

/** @fastify/csrf-protection's refusals (the console's forms): its secret missing, or the form's token not its session's. */
const CSRF_ERRORS = new Set(['FST_CSRF_MISSING_SECRET', 'FST_CSRF_INVALID_TOKEN']);

/**
 * The client went away while its body was being read (Node's "aborted"
 * error on the request stream). Nobody will read the answer; it is neither
 * a database outage nor our fault.
 */
export function isClientAbort(e: unknown, request: { raw?: { destroyed?: boolean } } | undefined): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  return !!err && err.code === 'ECONNRESET' && err.message === 'aborted' && request?.raw?.destroyed === true;
}

/** Errors Fastify raises while reading the body (bad JSON, wrong media type, too large). */
export function fromFrameworkError(e: unknown): DomainError | null {
  const fe = e as { statusCode?: unknown; code?: unknown } | null;
  if (!fe || typeof fe.statusCode !== 'number' || fe.statusCode < 400 || fe.statusCode >= 500) return null;
  if (fe.code === 'BODY_NOT_UTF8') return new InvalidRequestError('The body is not valid UTF-8; send JSON encoded as UTF-8.', 'body');
  if (typeof fe.code === 'string' && CSRF_ERRORS.has(fe.code)) {
    return new CsrfRefusedError(
      'This form did not carry the console session’s token (reload the page and try again); nothing was changed.',
    );
  }
  const known = typeof fe.code === 'string' ? BODY_ERRORS[fe.code] : undefined;
  return forStatus(fe.statusCode, known ?? (fe.statusCode === 400 ? 'The body is not valid JSON.' : undefined));
}
