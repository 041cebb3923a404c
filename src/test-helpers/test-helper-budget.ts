import { Injectable } from '@nestjs/common';
import { KeyAllowances, type Allowance } from '../auth/index.js';
import { RateLimitedError } from '../common/errors/problems.js';

/** Test-helper requests one key may have under way at once, in each api process. */
export const TEST_HELPER_CONCURRENCY = 4;
/** Test calls one key may create per hour: at most this many at once, then one more every 36 s. */
export const TEST_CALLS_PER_HOUR = 100;

const TEST_CALLS: Allowance = {
  name: 'test_calls',
  size: TEST_CALLS_PER_HOUR,
  everyMs: 3_600_000 / TEST_CALLS_PER_HOUR,
  refusal: (wait) => `A test key may create ${TEST_CALLS_PER_HOUR} test calls per hour. Retry after ${wait} s.`,
};

/**
 * The test helpers' per-key budget, beside the general rate limit: each simulated call stores a recording and a
 * transcript, so a key may create TEST_CALLS_PER_HOUR an hour (counted in PostgreSQL, across every api process), and
 * have TEST_HELPER_CONCURRENCY requests under way in a process, which is what a process's pool needs protecting from
 * (docs/decisions.md). Over either: 429 `rate_limited` with `Retry-After`.
 */
@Injectable()
export class TestHelperBudget {
  private readonly underWay = new Map<string, number>();

  constructor(private readonly allowances: KeyAllowances) {}

  /** `work` as one of the key's test-helper requests under way in this process, or 429 when it has enough. */
  async run<T>(keyId: string, work: () => Promise<T>): Promise<T> {
    const n = this.underWay.get(keyId) ?? 0;
    if (n >= TEST_HELPER_CONCURRENCY) {
      throw new RateLimitedError(
        1,
        `A test key may have ${TEST_HELPER_CONCURRENCY} test-helper requests under way at once. Retry after 1 s.`,
      );
    }
    this.underWay.set(keyId, n + 1);
    try {
      return await work();
    } finally {
      const left = this.underWay.get(keyId)! - 1;
      if (left === 0) this.underWay.delete(keyId);
      else this.underWay.set(keyId, left);
    }
  }

  /** One of the key's test calls of the hour, or 429 with the seconds until the next. */
  createCall(keyId: string): Promise<void> {
    return this.allowances.take(keyId, TEST_CALLS);
  }
}
