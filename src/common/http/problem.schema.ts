import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import type { ErrorCodes } from '../errors/domain-error.js';
import { ERROR_CODES, type ErrorCode } from '../errors/error-codes.js';
import { IDEMPOTENCY_KEY_KEPT_TEXT } from './idempotency-key-header.js';

/** One entry of a 400's `errors` list. */
@ApiSchema({ description: 'One problem of a 400: the parameter or body member at fault and what is wrong with it.' })
export class ProblemFieldError {
  @ApiProperty({ description: 'The query parameter or body member at fault (a dotted path inside the body).', example: 'limit' })
  param: string;
  @ApiProperty({ description: 'What is wrong with it, for people.', example: 'limit must be an integer from 1 to 100' })
  message: string;
}

/** The error body of every endpoint (RFC 9457 problem details plus `code`). */
@ApiSchema({ description: 'Every error body: RFC 9457 problem details (application/problem+json) plus a stable `code` to branch on.' })
export class Problem {
  @ApiProperty({ description: 'URI naming the kind of problem; one per `code`.', example: 'urn:receptionist-api:error:invalid_request' })
  type: string;
  @ApiProperty({ description: 'Short summary of the kind of problem, for people.', example: 'The request is not valid.' })
  title: string;
  @ApiProperty({ type: 'integer', description: 'The HTTP status code, repeated.', example: 400 }) status: number;
  @ApiProperty({ description: 'What went wrong with this request, for people.', example: 'limit must be an integer from 1 to 100.' })
  detail: string;
  @ApiProperty({
    type: 'string',
    // Every code, the contexts' too: filled in when the document is built (src/openapi-errors.ts).
    enum: [],
    description: 'Stable, machine-readable error code. Branch on this, never on text.',
    example: 'invalid_request',
  })
  code: string;
  @ApiPropertyOptional({ description: 'On 400: the parameter or body member at fault.', example: 'limit' }) param?: string;
  @ApiPropertyOptional({ type: [ProblemFieldError], description: 'On 400: every problem found, each once, with param and message.' })
  errors?: ProblemFieldError[];
  @ApiPropertyOptional({ description: 'On 403: the scope the endpoint needs.', example: 'calls:read' }) required_scope?: string;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'On 429, and on 409 `idempotency_key_in_use`: seconds to wait (also in the Retry-After header).',
    example: 30,
  })
  retry_after?: number;
  @ApiPropertyOptional({ description: 'On 500: quote it to support.', example: '9d2f6c1a-4b7e-4e3a-8f5d-2c6b1a0e7d93' }) error_id?: string;
  @ApiProperty({ description: 'Id of this request (also the x-request-id header).', example: '5b0c7f0e-2f1a-4d7e-9a51-0f3e2c1d4b6a' })
  request_id: string;
}

/**
 * An example body of a refusal, for the document: its title and status from the table that declares its code (the
 * kernel's or a context's `*.errors.ts`).
 */
export function problemExample<T extends ErrorCodes>(
  table: T,
  code: keyof T & string,
  detail: string,
  extra: Record<string, unknown> = {},
) {
  return {
    type: `urn:receptionist-api:error:${code}`,
    title: table[code].title,
    status: table[code].status,
    detail,
    code,
    ...extra,
    request_id: '5b0c7f0e-2f1a-4d7e-9a51-0f3e2c1d4b6a',
  };
}

const problem = (status: number, code: ErrorCode, detail: string, extra: Record<string, unknown> = {}) => {
  if (ERROR_CODES[code].status !== status) throw new Error(`${code} answers ${ERROR_CODES[code].status}, not ${status}`);
  return problemExample(ERROR_CODES, code, detail, extra);
};

/** One realistic example body per status; a 404's names its operation's resource (notFoundExample). */
export const PROBLEM_EXAMPLES: Record<number, object> = {
  400: problem(400, 'invalid_request', 'limit must be an integer from 1 to 100.', {
    param: 'limit',
    errors: [{ param: 'limit', message: 'limit must be an integer from 1 to 100' }],
  }),
  401: problem(401, 'unauthorized', 'Send a valid API key as "Authorization: Bearer svc_live_...".'),
  403: problem(403, 'insufficient_scope', 'This endpoint needs the "calls:read" scope, which this API key does not have.', {
    required_scope: 'calls:read',
  }),
  405: problem(405, 'method_not_allowed', 'HEAD is not supported here; use GET.'),
  413: problem(413, 'payload_too_large', 'The request body is too large.'),
  415: problem(415, 'unsupported_media_type', 'Send the body as application/json.'),
  429: problem(429, 'rate_limited', 'Too many requests; retry after 30 seconds.', { retry_after: 30 }),
  503: problem(503, 'service_unavailable', 'The service is temporarily unavailable; retry shortly.'),
};

/** A 404's example: the detail the service answers for the operation's own resource. */
export const notFoundExample = (detail: string) => problem(404, 'not_found', detail);

export const TEST_MODE_ONLY_EXAMPLE = problem(
  403,
  'test_mode_only',
  'This endpoint works only in test mode: send a test key (svc_test_...). A live key never creates or changes test data.',
);

/** 409 `idempotency_key_in_use` and 422 `idempotency_key_reused` on every keyed POST. */
export const IDEMPOTENCY_KEY_IN_USE_EXAMPLE = problem(
  409,
  'idempotency_key_in_use',
  'A request with this Idempotency-Key is still being processed; retry in 1 s to get its answer.',
  { retry_after: 1 },
);
export const IDEMPOTENCY_KEY_REUSED_EXAMPLE = problem(
  422,
  'idempotency_key_reused',
  `This Idempotency-Key was already used with another route or body (keys are kept ${IDEMPOTENCY_KEY_KEPT_TEXT} per API key); send a new key for a new request.`,
);
