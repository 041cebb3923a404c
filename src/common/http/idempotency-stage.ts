import { Injectable, Logger, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { defer, lastValueFrom, type Observable } from 'rxjs';
import { DomainError } from '../errors/domain-error.js';
import { httpHeaders, httpStatus } from '../errors/http-answers.js';
import { problemBody } from '../errors/problem.filter.js';
import { InvalidRequestError } from '../errors/problems.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_RULE, idempotencyKeyHeaderCount, parseIdempotencyKey } from './idempotency-key-header.js';
import { JSON_CONTENT_TYPE } from './json-answer.js';
import { PRINCIPAL, type ApiPrincipal } from './principal.js';
import { declarationOf } from './route-declaration.js';

/** An answer as stored and replayed: its status, the headers that describe its body, and the body's exact text. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A request sent with an Idempotency-Key, as the stage hands it to the store. */
export interface IdempotentRequest {
  keyId: string;
  /** The API key itself (never stored): what the answer is sealed with. */
  apiKey: string;
  idempotencyKey: string;
  method: string;
  /** The request's path as sent. */
  url: string;
  /** The parsed body; undefined without one. */
  body: unknown;
}

/** The key is this request's to run: its answer is stored (finish) or the key let go (release) under this claim. */
export interface IdempotencyClaim {
  request: IdempotentRequest;
  claimToken: string;
}

export type Begun = { kind: 'run'; claim: IdempotencyClaim } | { kind: 'replay'; answer: StoredAnswer };

/**
 * Where keys and answers are kept, and what makes two requests the same one: the idempotency context implements it
 * (src/idempotency, provided globally under this class), so the stage, which `@Endpoint` puts on the routes it
 * declares `idempotent`, depends on no context.
 */
export abstract class IdempotencyStore {
  /** Takes the key (run), or answers from it: the stored answer (replay); 422 or 409 thrown as refusals. */
  abstract begin(request: IdempotentRequest): Promise<Begun>;
  /** Stores the first request's answer, or lets the key go when the answer is one that stores nothing. */
  abstract finish(claim: IdempotencyClaim, answer: StoredAnswer): Promise<void>;
  abstract release(claim: IdempotencyClaim): Promise<void>;
}

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
 * The idempotency stage of a route declared `idempotent` (every keyed POST; `@Endpoint` puts it on those routes only,
 * so no other request pays for it), after the access guard (the key, its scope and the general rate limit) and
 * around the handler and its validation: with an `Idempotency-Key`, the first request takes the key and runs, and its
 * answer, success or refusal, is stored before it is sent; the same request again answers it with
 * `Idempotent-Replayed: true` and runs nothing (no event, no delivery, nothing of an endpoint's sends a minute).
 * Without the header nothing changes.
 */
@Injectable()
export class IdempotencyStage implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(private readonly idempotency: IdempotencyStore) {}

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
      method: req.method,
      url: req.url,
      body: req.body,
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
  if (!(err instanceof DomainError) || err.answer === undefined) return null;
  return {
    status: httpStatus(err),
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
