import type { ArgumentsHost } from '@nestjs/common';
import { errorsOf } from './domain-error';
import { ERROR_CODES, KernelError, type ErrorCode } from './error-codes';
import { httpHeaders, httpStatus } from './http-answers';
import { ProblemFilter } from './problem.filter';
import { IdempotencyKeyInUseError, MethodNotAllowedError, RateLimitedError, ServiceUnavailableError, UnauthorizedError } from './problems';

/** A refusal with any kernel code, as a service would throw it. */
class Refusal extends KernelError {
  constructor(
    readonly code: ErrorCode,
    extra: Record<string, unknown> = {},
  ) {
    super('refused', extra);
  }
}

/** A context's own refusal (as `src/leads/leads.errors.ts` declares `status_conflict`), with extra members. */
class ContextConflict extends errorsOf({ order_conflict: { title: 'The order changed.', status: 409 } }) {
  readonly code = 'order_conflict';
  constructor(extra: Record<string, unknown>) {
    super('changed', extra);
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

describe('the HTTP answers: problem code to status', () => {
  it("answers every kernel code with its table's 4xx or 5xx status and title", () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const refusal = new Refusal(code, { retry_after: 3 });
      expect([code, httpStatus(refusal) >= 400 && httpStatus(refusal) < 600]).toEqual([code, true]);
      const sent = answer(refusal);
      expect(sent.status).toBe(ERROR_CODES[code].status);
      expect(sent.body).toMatchObject({ code, title: ERROR_CODES[code].title, status: ERROR_CODES[code].status, detail: 'refused' });
    }
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

  it("answers a context's own code from its table, extra members as they are (the lead of a 409)", () => {
    const sent = answer(new ContextConflict({ current_status: 'signed', lead: { lead_id: 'lead_1' } }));
    expect(sent.status).toBe(409);
    expect(sent.body).toMatchObject({
      code: 'order_conflict',
      title: 'The order changed.',
      current_status: 'signed',
      lead: { lead_id: 'lead_1' },
    });
  });

  it('answers a code the table does not know as a 500 internal_error, never with that code', () => {
    const unknown = new Refusal('no_such_code' as ErrorCode);
    expect(httpStatus(unknown)).toBe(500);
    const sent = answer(unknown);
    expect(sent.status).toBe(500);
    expect(sent.body).toMatchObject({ code: 'internal_error', status: 500 });
    expect(JSON.stringify(sent.body)).not.toContain('no_such_code');
  });
});
