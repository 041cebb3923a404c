import { applyDecorators, Controller } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { RATE_LIMIT_TEXT } from './openapi-headers.js';
import {
  ENDPOINT_DISABLED_EXAMPLE,
  EndpointDisabledProblem,
  notFoundExample,
  Problem,
  PROBLEM_EXAMPLES,
  TEST_MODE_ONLY_EXAMPLE,
} from './problem.schema.js';

export { Problem, ProblemFieldError, EndpointDisabledProblem } from './problem.schema.js';

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

/** A 409 with its own body schema (a Problem subclass) and example. */
export function ApiConflict(description: string, schemaRef?: string, example?: object) {
  return ApiResponse({
    status: 409,
    description,
    content: problemContent(schemaRef ?? getSchemaPath(Problem), example ?? PROBLEM_EXAMPLES[409]),
  });
}

/** 409 `endpoint_disabled` on test and redeliver: the body names why the endpoint is off. */
export function ApiEndpointDisabled() {
  return applyDecorators(
    ApiExtraModels(EndpointDisabledProblem),
    ApiConflict(
      'The endpoint is turned off (`endpoint_disabled`); `disabled_reason` says why.',
      getSchemaPath(EndpointDisabledProblem),
      ENDPOINT_DISABLED_EXAMPLE,
    ),
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
