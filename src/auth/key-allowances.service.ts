import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { RateLimitedError } from '../common/errors/problems.js';
import { KeyAllowancesRepository } from './key-allowances.repository.js';

/** An allowance counted over time: at most `size` at once, one more back every `everyMs` (a token bucket). */
export interface Allowance {
  /** Its name among a key's allowances (`test_calls`). */
  name: string;
  size: number;
  everyMs: number;
  /** The 429's detail, given the seconds to wait. */
  refusal: (retryAfterSeconds: number) => string;
}

/**
 * Per-key allowances counted over time, beside the general rate limit (rate-limit.service.ts) and kept like it in
 * PostgreSQL, so every api process draws from one bucket: a take is one upsert; when the bucket is empty it changes
 * nothing and the answer is 429 `rate_limited` with `Retry-After` (until one whole token is back).
 */
@Injectable()
export class KeyAllowances {
  constructor(
    private readonly repo: KeyAllowancesRepository,
    private readonly clock: Clock,
  ) {}

  async take(keyId: string, allowance: Allowance): Promise<void> {
    const perSecond = 1000 / allowance.everyMs;
    const now = this.clock.now();
    if ((await this.repo.take(keyId, allowance.name, allowance.size, perSecond, now)) !== null) return;
    const left = await this.repo.level(keyId, allowance.name, allowance.size, perSecond, now);
    const wait = Math.max(1, Math.ceil((1 - left) / perSecond));
    throw new RateLimitedError(wait, allowance.refusal(wait));
  }
}
