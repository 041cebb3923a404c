import type { ArgumentsHost } from '@nestjs/common';
import { DomainError } from './domain-error';
import { ERROR_CODES, type ErrorCode } from './error-codes';
import { HTTP_ANSWERS, httpHeaders, httpStatus } from './http-answers';
import { ProblemFilter } from './problem.filter';
import {
  IdempotencyKeyInUseError,
  MethodNotAllowedError,
  RateLimitedError,
  ServiceUnavailableError,
  StatusConflictError,
  UnauthorizedError,
} from './problems';

/** A refusal with any code, as a service would throw it. */
class Refusal extends DomainError {
  constructor(
    readonly code: ErrorCode,
    extra: Record<string, unknown> = {},
  ) {
    super('refused', extra);
  }
}

/** What the filter writes: status, headers and the problem document. */
function answer(exception: unknown) {
  const sent: { status?: number; headers?: Record<string, string>; body?: Record<string, unknown> } = {};
  const reply = {
    sent: false,
    status: (s: number) => ((sent.status = s), reply),
    headers: (h: Record<string, string>) => ((sent.headers = h), reply),
    send: (body: string) => ((sent.body = JSON.parse(body)), reply),
  };
  const host = { switchToHttp: () => ({ getResponse: () => reply, getRequest: () => ({ id: 'req_1' }) }) } as unknown as ArgumentsHost;
  new ProblemFilter({ answeredUnavailable: () => undefined }).catch(exception, host);
  return sent;
}

describe('the HTTP table: problem code to status', () => {
  it('maps every public code to a 4xx or 5xx status, and nothing else', () => {
    expect(Object.keys(HTTP_ANSWERS).sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      expect([code, httpStatus(code) >= 400 && httpStatus(code) < 600]).toEqual([code, true]);
      const sent = answer(new Refusal(code, { retry_after: 3 }));
      expect(sent.status).toBe(HTTP_ANSWERS[code].status);
      expect(sent.body).toMatchObject({ code, status: HTTP_ANSWERS[code].status, detail: 'refused', request_id: 'req_1' });
    }
  });

  it('keeps the statuses the API has always answered', () => {
    const statuses = Object.fromEntries(Object.entries(HTTP_ANSWERS).map(([code, a]) => [code, a.status]));
    expect(statuses).toEqual({
      invalid_request: 400,
      after_lost: 400,
      unauthorized: 401,
      insufficient_scope: 403,
      test_mode_only: 403,
      not_found: 404,
      method_not_allowed: 405,
      not_published: 409,
      status_conflict: 409,
      endpoint_disabled: 409,
      idempotency_key_in_use: 409,
      idempotency_key_reused: 422,
      payload_too_large: 413,
      unsupported_media_type: 415,
      rate_limited: 429,
      console_sign_in_required: 401,
      csrf_refused: 403,
      console_read_only: 403,
      service_unavailable: 503,
      internal_error: 500,
    });
  });

  it('adds the headers of a code, then the ones the raising stage set', () => {
    expect(httpHeaders(new UnauthorizedError())).toEqual({ 'WWW-Authenticate': 'Bearer' });
    expect(httpHeaders(new ServiceUnavailableError())).toEqual({ 'Retry-After': '5' });
    expect(httpHeaders(new RateLimitedError(7, 'slow down').withHeader('RateLimit', 'limit=1'))).toEqual({
      'Retry-After': '7',
      RateLimit: 'limit=1',
    });
    expect(httpHeaders(new MethodNotAllowedError('no', 'GET, HEAD'))).toEqual({ Allow: 'GET, HEAD' });
    expect(httpHeaders(new IdempotencyKeyInUseError(1))).toEqual({ 'Retry-After': '1' });
  });

  it('answers extra members as they are (the lead of a 409)', () => {
    const sent = answer(new StatusConflictError('changed', { current_status: 'signed', lead: { lead_id: 'lead_1' } }));
    expect(sent.status).toBe(409);
    expect(sent.body).toMatchObject({ code: 'status_conflict', current_status: 'signed', lead: { lead_id: 'lead_1' } });
  });

  it('answers a code the table does not know as a 500 internal_error, never with that code', () => {
    expect(httpStatus('no_such_code')).toBe(500);
    const sent = answer(new Refusal('no_such_code' as ErrorCode));
    expect(sent.status).toBe(500);
    expect(sent.body).toMatchObject({ code: 'internal_error', status: 500 });
    expect(JSON.stringify(sent.body)).not.toContain('no_such_code');
  });
});
