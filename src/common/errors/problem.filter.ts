import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { ApiError, ERROR_CODES, ErrorCode, serviceUnavailable } from './api-error.js';
import { isDatabaseUnavailable } from './db-errors.js';

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'insufficient_scope',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/**
 * What of an unknown error may be logged: never the statement's parameters
 * (TypeORM's QueryFailedError carries them, and they can hold hashes or
 * ciphertext of secrets).
 */
function loggable(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { message: String(e) };
  const pgCode = (e as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code ?? (e as { code?: unknown }).code;
  return { type: e.name, message: e.message, code: pgCode, stack: e.stack };
}

export const problemType = (code: string) => `urn:receptionist-api:error:${code}`;

/**
 * The one exit for every error: an RFC 9457 problem document with a stable
 * `code`. Unknown errors become a 500 with an error id that is logged, never a
 * 400 and never a message that could carry data or secrets.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const error = this.toApiError(exception);
    const body: Record<string, unknown> = {
      type: problemType(error.code),
      title: error.title,
      status: error.status,
      detail: error.detail,
      code: error.code,
      ...error.extra,
      request_id: request?.id,
    };
    if (error.status >= 500 && error.code === 'internal_error') {
      this.logger.error({ err: loggable(exception), error_id: body.error_id, request_id: request?.id }, 'unhandled error');
    }
    if (reply.sent) return;
    reply
      .status(error.status)
      .headers({ ...error.headers, 'content-type': 'application/problem+json; charset=utf-8' })
      .send(JSON.stringify(body));
  }

  private toApiError(e: unknown): ApiError {
    if (e instanceof ApiError) return e;
    if (isDatabaseUnavailable(e)) return serviceUnavailable();
    if (e instanceof HttpException) {
      const status = e.getStatus();
      const code = STATUS_CODES[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
      const detail = status === 404 ? 'No such endpoint. Every path starts with /v1; see /v1/openapi.json.' : ERROR_CODES[code];
      return new ApiError(status, code, detail);
    }
    // Errors Fastify raises while reading the body (bad JSON, wrong media type, too large).
    const fe = e as { statusCode?: number; code?: string; message?: string } | null;
    if (fe && typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      const code = STATUS_CODES[fe.statusCode] ?? 'invalid_request';
      const detail =
        fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
          ? 'The body is empty; send a JSON object.'
          : fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? 'Unsupported content type; send application/json.'
            : fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
              ? 'The request body is too large.'
              : fe.statusCode === 400
                ? 'The body is not valid JSON.'
                : ERROR_CODES[code];
      return new ApiError(fe.statusCode, code, detail);
    }
    return new ApiError(500, 'internal_error', 'Something went wrong on our side. Quote error_id when contacting support.', {
      error_id: randomUUID(),
    });
  }
}
