import { applyDecorators, Controller, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_HEADER_DOC, IDEMPOTENCY_KEY_KEPT_TEXT, IDEMPOTENCY_KEY_PATTERN } from './idempotency-key-header.js';
import { RATE_LIMIT_TEXT, RESPONSE_HEADERS } from './openapi-headers.js';
import {
  IDEMPOTENCY_KEY_IN_USE_EXAMPLE,
  IDEMPOTENCY_KEY_REUSED_EXAMPLE,
  notFoundExample,
  Problem,
  PROBLEM_EXAMPLES,
  TEST_MODE_ONLY_EXAMPLE,
} from './problem.schema.js';

export { Problem, ProblemFieldError, problemExample } from './problem.schema.js';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid parameters or body (`invalid_request`): a query parameter the operation does not list (`foo is not a known parameter.`), or a value or body its schema refuses; `param` names the first offending one and `errors` lists each problem once.',
  401: 'Missing, malformed, unknown, revoked or expired API key (`unauthorized`); the WWW-Authenticate header says `Bearer`.',
  403: 'The key lacks the required scope (`insufficient_scope`); `required_scope` names it.',
  404: "Not found (`not_found`); another firm's ids answer the same way.",
  405: 'Method not allowed (`method_not_allowed`); the Allow header lists the methods that are.',
  409: 'Conflict.',
  413: 'Body too large (`payload_too_large`).',
  415: 'Wrong content type, or a body sent with a `Content-Encoding` other than `identity`, which the detail names: request bodies are never decompressed (`unsupported_media_type`).',
  429: `Rate limited (\`rate_limited\`); wait for Retry-After seconds. ${RATE_LIMIT_TEXT}`,
  503: 'Temporarily unavailable (`service_unavailable`), for example while the database cannot be reached or while this process shuts down; retry after Retry-After seconds.',
};

/** What the document says of an error status on every operation that answers it. */
export const problemDescription = (status: number): string => DESCRIPTIONS[status] ?? 'Error.';

const problemContent = (schemaRef: string, example: object) => ({
  'application/problem+json': { schema: { $ref: schemaRef }, example },
});

/** Documents the listed error statuses with the Problem schema and an example of each (a 404: ApiNotFound). */
export function ApiProblems(...statuses: number[]) {
  const without = statuses.filter((status) => !PROBLEM_EXAMPLES[status]);
  if (without.length > 0) throw new Error(`no shared example for ${without.join(', ')}: a 404 names its resource (ApiNotFound)`);
  return applyDecorators(
    ApiExtraModels(Problem),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error.',
        content: problemContent(getSchemaPath(Problem), PROBLEM_EXAMPLES[status]),
      }),
    ),
  );
}

/** 404, its example the detail the service answers for this operation's own resource ("The lead was not found."). */
export function ApiNotFound(detail: string) {
  return applyDecorators(
    ApiExtraModels(Problem),
    ApiResponse({ status: 404, description: DESCRIPTIONS[404], content: problemContent(getSchemaPath(Problem), notFoundExample(detail)) }),
  );
}

/** A 409 with its own example (a context's code: `problemExample`) and, when it has extra members, body schema. */
export function ApiConflict(description: string, schemaRef: string | undefined, example: object) {
  return ApiResponse({
    status: 409,
    description,
    content: problemContent(schemaRef ?? getSchemaPath(Problem), example),
  });
}

const RETRY_AFTER_REF = { $ref: '#/components/headers/RetryAfter' };

const IN_USE_TEXT =
  'A request with the same `Idempotency-Key` is still being processed (`idempotency_key_in_use`): retry after `Retry-After` seconds to get its answer.';

/**
 * The `Idempotency-Key` request header of every keyed POST (access.decorators.ts), and what it can answer: 409
 * `idempotency_key_in_use` (with Retry-After) while the first request with the key runs, 422 `idempotency_key_reused`
 * when the key was first sent with another route or body. An operation with a 409 of its own documents both
 * (ApiConflictOrKeyInUse).
 */
export function ApiIdempotencyKey() {
  return applyDecorators(
    ApiExtraModels(Problem),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description: IDEMPOTENCY_KEY_HEADER_DOC,
      schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN },
      example: '8e03978e-40d5-43e8-bc93-6894a57f9324',
    }),
    ApiResponse({
      status: 409,
      description: IN_USE_TEXT,
      headers: { 'Retry-After': RETRY_AFTER_REF },
      content: problemContent(getSchemaPath(Problem), IDEMPOTENCY_KEY_IN_USE_EXAMPLE),
    }),
    ApiResponse({
      status: 422,
      description: `The \`Idempotency-Key\` was already used, by this API key within ${IDEMPOTENCY_KEY_KEPT_TEXT}, with another route or body (\`idempotency_key_reused\`); nothing was run. Send a new key for a new request.`,
      content: problemContent(getSchemaPath(Problem), IDEMPOTENCY_KEY_REUSED_EXAMPLE),
    }),
  );
}

/**
 * A keyed POST's 409 with a meaning of its own (its schema, a Problem subclass, and its example, named by its code), or,
 * like every keyed POST, `idempotency_key_in_use`: webhooks' `endpoint_disabled` on test and redeliver.
 */
export function ApiConflictOrKeyInUse(description: string, model: Type, example: { code: string; summary: string; value: object }) {
  return applyDecorators(
    ApiExtraModels(model, Problem),
    ApiResponse({
      status: 409,
      description: `${description} Or: ${IN_USE_TEXT}`,
      // Only on idempotency_key_in_use.
      headers: { 'Retry-After': { ...RESPONSE_HEADERS.RetryAfter, required: false } },
      content: {
        'application/problem+json': {
          // anyOf: the served schemas are open, so a body of the operation's own 409 is also a Problem.
          schema: { anyOf: [{ $ref: getSchemaPath(model) }, { $ref: getSchemaPath(Problem) }] },
          examples: {
            [example.code]: { summary: example.summary, value: example.value },
            idempotency_key_in_use: { summary: 'The same Idempotency-Key is still being processed', value: IDEMPOTENCY_KEY_IN_USE_EXAMPLE },
          },
        },
      },
    }),
  );
}

/** 403 `test_mode_only` on the operations that take only a test key (the test helpers). */
export function ApiTestModeOnly() {
  return applyDecorators(
    ApiExtraModels(Problem),
    ApiResponse({
      status: 403,
      description: 'The key is a live key (`test_mode_only`): this operation works only with a test key (`svc_test_...`).',
      content: problemContent(getSchemaPath(Problem), TEST_MODE_ONLY_EXAMPLE),
    }),
  );
}

/** A controller of the public document: the tag its operations are listed under and its route prefix, in one. */
export function TaggedController(tag: string, prefix = ''): ClassDecorator {
  return applyDecorators(ApiTags(tag), Controller(prefix));
}
