import { Injectable, Logger, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { defer, lastValueFrom, type Observable } from 'rxjs';
import { DomainError } from '../common/errors/domain-error.js';
import { isErrorCode } from '../common/errors/error-codes.js';
import { httpHeaders, httpStatus } from '../common/errors/http-answers.js';
import { problemBody } from '../common/errors/problem.filter.js';
import { InvalidRequestError } from '../common/errors/problems.js';
import { JSON_CONTENT_TYPE } from '../common/http/json-answer.js';
import { PRINCIPAL, type ApiPrincipal } from '../common/http/principal.js';
import { declarationOf } from '../common/http/route-declaration.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_RULE,
  idempotencyKeyHeaderCount,
  parseIdempotencyKey,
} from '../common/http/idempotency-key-header.js';
import { IdempotencyService, type IdempotencyClaim } from './idempotency.service.js';
import { requestFingerprint } from './request-fingerprint.js';
import type { StoredAnswer } from './stored-answer.js';

/** The answer header of a replay. */
export const REPLAYED_HEADER = 'idempotent-replayed';
/** Headers the handler sets that describe its answer, stored and replayed with it. */
const KEPT_HEADERS = ['cache-control', 'location'];
const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** The key of the request's Idempotency-Key header; undefined without one; 400 for a malformed or repeated one. */
function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const raw = req.headers[IDEMPOTENCY_KEY_HEADER];
  if (raw === undefined) return undefined;
  if (idempotencyKeyHeaderCount(req.raw.rawHeaders) > 1)
    throw new InvalidRequestError('Send at most one Idempotency-Key header.', IDEMPOTENCY_KEY_HEADER);
  const key = parseIdempotencyKey(String(raw));
  if (key === null) throw new InvalidRequestError(`Idempotency-Key must be ${IDEMPOTENCY_KEY_RULE}.`, IDEMPOTENCY_KEY_HEADER);
  return key;
}

const bearerToken = (header: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';

/**
 * The idempotency stage of a route declared `idempotent` (every keyed POST), after the access guard (the key, its
 * scope and the general rate limit) and around the handler and its validation: with an `Idempotency-Key`, the first
 * request takes the key and runs, and its answer, success or refusal, is stored before it is sent; the same request
 * again answers it with `Idempotent-Replayed: true` and runs nothing (no event, no delivery, none of an endpoint's 5
 * sends a minute). Without the header nothing changes.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    if (!declarationOf(req)?.idempotent) return next.handle();
    const idempotencyKey = idempotencyKeyOf(req);
    if (idempotencyKey === undefined) return next.handle();
    const reply = ctx.switchToHttp().getResponse<FastifyReply>();
    const principal = (req as unknown as Record<symbol, ApiPrincipal>)[PRINCIPAL];
    return defer(() => this.answer(req, reply, next, principal, idempotencyKey));
  }

  private async answer(
    req: FastifyRequest,
    reply: FastifyReply,
    next: CallHandler,
    principal: ApiPrincipal,
    idempotencyKey: string,
  ): Promise<unknown> {
    const begun = await this.idempotency.begin({
      keyId: principal.keyId,
      apiKey: bearerToken(req.headers.authorization),
      idempotencyKey,
      requestHash: requestFingerprint(req.method, req.url, req.body),
    });
    if (begun.kind === 'replay') {
      reply.status(begun.answer.status).headers({ ...begun.answer.headers, [REPLAYED_HEADER]: 'true' });
      return begun.answer.body;
    }
    return this.runFirst(req, reply, next, begun.claim);
  }

  /** The handler, then its answer stored (or the key let go) before the answer is sent. */
  private async runFirst(req: FastifyRequest, reply: FastifyReply, next: CallHandler, claim: IdempotencyClaim): Promise<unknown> {
    let value: unknown;
    try {
      value = await lastValueFrom(next.handle(), { defaultValue: undefined });
    } catch (err) {
      await this.settle(claim, refusalAnswer(req, err));
      throw err;
    }
    if (value === null || typeof value !== 'object' || typeof (value as { pipe?: unknown }).pipe === 'function') {
      // Not a JSON answer (none of the idempotent routes gives another): nothing to replay, so nothing is kept.
      await this.settle(claim, null);
      return value;
    }
    // Sent as the exact text stored, so a replay is byte for byte the first answer.
    const body = JSON.stringify(value);
    reply.header('content-type', JSON_CONTENT_TYPE);
    await this.settle(claim, { status: reply.statusCode, headers: keptHeaders(reply), body });
    return body;
  }

  /**
   * Stores the answer (or lets the key go: null). The operation has run either way, so a failure here (the database
   * gone meanwhile) does not change the answer: the key stays held until its lease runs out, and is logged.
   */
  private async settle(claim: IdempotencyClaim, answer: StoredAnswer | null): Promise<void> {
    try {
      await (answer ? this.idempotency.finish(claim, answer) : this.idempotency.release(claim));
    } catch (err) {
      // The error's message and code only: a driver error can carry a statement's parameters (here, the sealed answer).
      const cause = { message: (err as Error)?.message, code: (err as { code?: unknown })?.code };
      this.logger.warn(
        { err: cause, key_id: claim.request.keyId },
        'could not store an idempotent answer; its key is held until its lease ends',
      );
    }
  }
}

/** A refusal the operation gave, as the problem document the filter sends for it; null for any other error (not kept). */
function refusalAnswer(req: FastifyRequest, err: unknown): StoredAnswer | null {
  if (!(err instanceof DomainError) || !isErrorCode(err.code)) return null;
  return {
    status: httpStatus(err.code),
    headers: { ...httpHeaders(err), 'content-type': PROBLEM_CONTENT_TYPE },
    body: JSON.stringify(problemBody(err, req.id)),
  };
}

function keptHeaders(reply: FastifyReply): Record<string, string> {
  const kept: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (typeof value === 'string') kept[name] = value;
  }
  return kept;
}
