import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_CODES } from '../errors/api-error.js';

/** The error body of every endpoint (RFC 9457 problem details plus `code`). */
export class Problem {
  @ApiProperty({ example: 'urn:receptionist-api:error:invalid_request' }) type: string;
  @ApiProperty({ example: 'The request is not valid.' }) title: string;
  @ApiProperty({ example: 400 }) status: number;
  @ApiProperty({ example: 'limit must be an integer from 1 to 100.' }) detail: string;
  @ApiProperty({ enum: Object.keys(ERROR_CODES), description: 'Stable, machine-readable error code. Branch on this, never on text.' })
  code: string;
  @ApiPropertyOptional({ description: 'On 400: the parameter or body member at fault.', example: 'limit' }) param?: string;
  @ApiPropertyOptional({ description: 'On 400: every problem found, each with param and message.' })
  errors?: { param: string; message: string }[];
  @ApiPropertyOptional({ description: 'On 403: the scope the endpoint needs.' }) required_scope?: string;
  @ApiPropertyOptional({ description: 'On 429: seconds to wait (also in the Retry-After header).' }) retry_after?: number;
  @ApiPropertyOptional({ description: 'On 500: quote it to support.' }) error_id?: string;
  @ApiProperty({ description: 'Id of this request (also the x-request-id header).' }) request_id: string;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid parameters or body (`invalid_request`); `param` names the offending one.',
  401: 'Missing, malformed, unknown, revoked or expired API key (`unauthorized`).',
  403: 'The key lacks the required scope (`insufficient_scope`).',
  404: "Not found (`not_found`); another firm's ids answer the same way.",
  405: 'Method not allowed (`method_not_allowed`); see the Allow header.',
  409: 'Conflict.',
  413: 'Body too large (`payload_too_large`).',
  415: 'Wrong content type (`unsupported_media_type`).',
  429: 'Rate limited (`rate_limited`); wait for Retry-After seconds.',
  503: 'Temporarily unavailable (`service_unavailable`); retry after Retry-After seconds.',
};

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } };

/** Documents the listed error statuses with the Problem schema. */
export function ApiProblems(...statuses: number[]) {
  return applyDecorators(
    ApiExtraModels(Problem),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error.',
        content: { 'application/problem+json': { schema: { $ref: getSchemaPath(Problem) } } },
        ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
      }),
    ),
  );
}

export function ApiConflict(description: string, schemaRef?: string) {
  return ApiResponse({
    status: 409,
    description,
    content: { 'application/problem+json': { schema: { $ref: schemaRef ?? getSchemaPath(Problem) } } },
  });
}
