import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../common/errors/problems.js';
import { storesAnswer } from '../common/http/idempotency-key-header.js';
import {
  IdempotencyStore,
  type Begun,
  type IdempotencyClaim,
  type IdempotentRequest,
  type StoredAnswer,
} from '../common/http/idempotency-stage.js';
import { RetentionRunner } from '../common/retention/retention-runner.js';
import { IdempotencyKeysRepository, type KeyRef } from './idempotency-keys.repository.js';
import { requestFingerprint } from './request-fingerprint.js';
import { openAnswer, sealAnswer } from './stored-answer.js';
import { IDEMPOTENCY_KEY_KEPT_MS } from '../common/http/idempotency-key-header.js';

/**
 * How long the first request holds its key before another request with it may run: far longer than any POST takes
 * (milliseconds to a few seconds), so a retry while it runs answers 409; a process that died mid-request lets the
 * key go after this.
 */
export const IDEMPOTENCY_LEASE_SECONDS = 60;
/** The Retry-After of a 409 while the first request runs: the requests it guards take about a second at most. */
export const IN_USE_RETRY_AFTER_SECONDS = 1;
/** A key that is let go between our attempt to take it and our read is taken again, this many times at most. */
const CLAIM_TRIES = 3;

/**
 * Idempotency-Key (IETF draft-ietf-httpapi-idempotency-key-header, as Stripe keeps it): per API key, for 24 hours,
 * in PostgreSQL, so a retry reaches the stored answer through any api process and after a failover.
 */
@Injectable()
export class IdempotencyService extends IdempotencyStore implements OnModuleInit {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly keys: IdempotencyKeysRepository,
    private readonly clock: Clock,
    private readonly retention: RetentionRunner,
  ) {
    super();
  }

  /** Keys older than 24 hours are deleted in batches by the retention job (worker roles); until then none is read. */
  onModuleInit(): void {
    this.retention.registerRows({
      name: 'idempotency_keys',
      maxAgeMs: IDEMPOTENCY_KEY_KEPT_MS,
      deleteBatch: (cutoff, limit) => this.keys.deleteBefore(cutoff, limit),
    });
  }

  /**
   * Takes the key for this request (run it), or answers from what it holds: the stored answer of this same request
   * (replay), 422 `idempotency_key_reused` when it was first sent with another route or body, 409
   * `idempotency_key_in_use` while that first request still runs.
   */
  async begin(request: IdempotentRequest): Promise<Begun> {
    const ref = refOf(request);
    const requestHash = requestFingerprint(request.method, request.url, request.body);
    for (let attempt = 1; ; attempt++) {
      const now = this.clock.now();
      const forgottenBefore = new Date(now.getTime() - IDEMPOTENCY_KEY_KEPT_MS);
      const claimToken = await this.keys.claim(ref, requestHash, now, forgottenBefore, IDEMPOTENCY_LEASE_SECONDS);
      if (claimToken) return { kind: 'run', claim: { request, claimToken } };
      const held = await this.keys.held(ref);
      // Let go between the two statements (its first request answered something it does not store): take it again.
      if (!held && attempt < CLAIM_TRIES) continue;
      if (!held) throw new IdempotencyKeyInUseError(IN_USE_RETRY_AFTER_SECONDS);
      if (held.requestHash !== requestHash) throw new IdempotencyKeyReusedError();
      if (held.statusCode === null || held.answer === null) throw new IdempotencyKeyInUseError(IN_USE_RETRY_AFTER_SECONDS);
      const answer = openAnswer(held.answer, request, request.keyId);
      // Sealed with this very API key and idempotency key: it always opens, unless the sealed text was damaged.
      if (!answer) throw new Error('a stored idempotent answer did not open');
      return { kind: 'replay', answer };
    }
  }

  /** The first request's answer: stored for replays when it is one that stores, else the key is let go. */
  async finish(claim: IdempotencyClaim, answer: StoredAnswer): Promise<void> {
    const ref = refOf(claim.request);
    if (!storesAnswer(answer.status)) return this.release(claim);
    const stored = await this.keys.store(ref, claim.claimToken, answer.status, sealAnswer(answer, claim.request, ref.keyId));
    if (!stored) {
      this.logger.warn(
        { key_id: ref.keyId, status: answer.status },
        'an idempotent request outlasted its lease and another request took its key over; its answer was not stored',
      );
    }
  }

  /** The key is let go: the same key may be sent again, and runs. */
  release(claim: IdempotencyClaim): Promise<void> {
    return this.keys.release(refOf(claim.request), claim.claimToken);
  }
}

const refOf = (r: IdempotentRequest): KeyRef => ({ keyId: r.keyId, idempotencyKey: r.idempotencyKey });
