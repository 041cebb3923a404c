import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { DomainError } from './domain-error.js';
import { httpHeaders, httpStatus } from './http-answers.js';
import { isDatabaseUnavailable } from './db-errors.js';
import type { DatabaseOutage } from '../ops/database-outage.js';
import { fromFrameworkError, fromHttpException, isClientAbort } from './framework-errors.js';
import { InternalError, InvalidRequestError, ServiceUnavailableError } from './problems.js';

/**
 * What of an unknown error may be logged: never the statement's parameters
 * (TypeORM's QueryFailedError carries them, and they can hold hashes or
 * ciphertext of secrets).
 */
function loggable(e: unknown): Record<string, unknown> {
  if (!(e instanceof Error)) return { message: String(e) };
  const pgCode = (e as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code ?? (e as { code?: unknown }).code;
  return { type: e.name, message: e.message, code: pgCode, stack: e.stack, cause: e.cause === undefined ? undefined : loggable(e.cause) };
}

export const problemType = (code: string) => `urn:receptionist-api:error:${code}`;

/** The RFC 9457 document of a refusal; `status` is its code's (http-answers.ts) unless the caller answers another. */
export function problemBody(error: DomainError, requestId: string | undefined, status = httpStatus(error)): Record<string, unknown> {
  return {
    type: problemType(error.code),
    title: error.title,
    status,
    detail: error.detail,
    code: error.code,
    ...error.extra,
    request_id: requestId,
  };
}

/** Writes a refusal as application/problem+json; also used for errors Fastify raises before routing. */
export function sendProblem(reply: FastifyReply, requestId: string | undefined, error: DomainError): void {
  if (reply.sent) return;
  const body = problemBody(error, requestId);
  reply
    .status(httpStatus(error))
    // Errors raised before routing never ran the onRequest hook that sets x-request-id; every answer carries it.
    .headers({
      ...httpHeaders(error),
      ...(requestId ? { 'x-request-id': requestId } : {}),
      'content-type': 'application/problem+json; charset=utf-8',
    })
    .send(JSON.stringify(body));
}

/**
 * The one exit for every error: an RFC 9457 problem document with a stable
 * `code`. A domain error answers with its code's status (http-answers.ts);
 * an unreachable database is a 503 (logged once per outage); anything else, a domain error whose code
 * that table does not know included, is a 500 whose cause is logged once
 * under an error id, never a 4xx and never a message that could carry data.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  /** An unreachable database is logged once per outage there, not once per request (the access line has each 503). */
  constructor(private readonly outage: Pick<DatabaseOutage, 'answeredUnavailable'>) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    sendProblem(reply, request?.id, this.toProblem(exception, request));
  }

  private toProblem(e: unknown, request: FastifyRequest | undefined): DomainError {
    if (e instanceof DomainError && e.answer !== undefined) return e;
    const requestId = request?.id;
    if (isClientAbort(e, request)) {
      this.logger.debug({ request_id: requestId }, 'client went away before its body was read');
      return new InvalidRequestError('The request body was not received completely.');
    }
    if (isDatabaseUnavailable(e)) {
      this.outage.answeredUnavailable(e);
      return new ServiceUnavailableError(undefined, { cause: e });
    }
    const known = e instanceof HttpException ? fromHttpException(e) : fromFrameworkError(e);
    if (known) return known;
    const internal = new InternalError(randomUUID(), undefined, { cause: e });
    this.logger.error({ err: loggable(e), error_id: internal.errorId, request_id: requestId }, 'unhandled error');
    return internal;
  }
}
