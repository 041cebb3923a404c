import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { RateLimitedError } from '../common/errors/problems.js';
import { AppConfig } from '../config/app-config.js';
import { rateLimitPolicy } from './concurrent-requests.js';
import { RateLimitRepository } from './rate-limit.repository.js';

/** Headers to put on the answer (RateLimit-Policy / RateLimit, draft-ietf-httpapi-ratelimit-headers-09). */
export type RateLimitHeaders = Record<string, string>;

/** What this process holds of one key's bucket. */
interface HeldTokens {
  /** Leased from the shared bucket, not yet spent. */
  tokens: number;
  /** What the shared bucket had left after this process's last lease. */
  shared: number;
  /** The lease on its way, which concurrent requests of the key wait for instead of leasing again. */
  leasing: Promise<number> | null;
  /** The last lease found the bucket empty: no token can be back before this (application clock, ms). */
  refusedUntil: number;
}

/** Keys held at most per process; past it the holdings start over (the unspent tokens are lost, never doubled). */
const MAX_KEYS_HELD = 10_000;
/** A lease is 100 ms of the key's rate, 1 to 1,000 tokens: at the default 100/s, one statement per 10 requests. */
export const leaseSize = (perSecond: number): number => Math.min(1000, Math.max(1, Math.floor(perSecond / 10)));

/**
 * The general per-key limit: a token bucket of RATE_LIMIT_BURST tokens refilled
 * at RATE_LIMIT_PER_SECOND, kept in PostgreSQL so every api process shares it.
 * Each process leases whole tokens from the bucket (leaseSize at a time, one
 * statement) and spends them locally, so most requests write nothing: every
 * request spends a token taken from the shared bucket, and a process holds at
 * most one lease unspent, so across P processes a key gets at most
 * P x leaseSize requests more than one bucket would allow in any window.
 */
@Injectable()
export class RateLimitService {
  private readonly held = new Map<string, HeldTokens>();
  private readonly lease: number;
  private readonly policy: string;

  constructor(
    private readonly repo: RateLimitRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.lease = leaseSize(config.rateLimitPerSecond);
    this.policy = rateLimitPolicy(config);
  }

  /** Takes one request from the key's bucket; returns the headers, or throws 429 rate_limited (headers attached). */
  async take(keyId: string): Promise<RateLimitHeaders> {
    const held = this.holding(keyId);
    // Refused only once a lease found the bucket empty: others of the key may spend a lease this request waited for.
    while (held.tokens < 1) {
      if (held.refusedUntil > this.clock.now().getTime()) break;
      held.leasing ??= this.leaseInto(keyId, held);
      if ((await held.leasing) === 0) break;
    }
    if (held.tokens < 1) throw this.refusal(held);
    held.tokens -= 1;
    const remaining = held.tokens + Math.max(0, Math.floor(held.shared));
    return this.headers(remaining, held.shared);
  }

  private holding(keyId: string): HeldTokens {
    let held = this.held.get(keyId);
    if (!held) {
      if (this.held.size >= MAX_KEYS_HELD) this.held.clear();
      held = { tokens: 0, shared: 0, leasing: null, refusedUntil: 0 };
      this.held.set(keyId, held);
    }
    return held;
  }

  /** One statement: up to a lease's worth of tokens into this process's hands; resolves to how many came. */
  private async leaseInto(keyId: string, held: HeldTokens): Promise<number> {
    const now = this.clock.now();
    try {
      const got = await this.repo.lease(keyId, this.config.rateLimitPerSecond, this.config.rateLimitBurst, now, this.lease);
      held.tokens += got.granted;
      held.shared = got.tokens;
      if (got.granted === 0) held.refusedUntil = now.getTime() + this.waitSeconds(got.tokens) * 1000;
      return got.granted;
    } finally {
      held.leasing = null;
    }
  }

  /** Seconds until a whole token is back in the shared bucket (at least 1: headers count whole seconds). */
  private waitSeconds(shared: number): number {
    return Math.max(1, Math.ceil((1 - shared) / this.config.rateLimitPerSecond));
  }

  private headers(remaining: number, shared: number): RateLimitHeaders {
    return {
      'RateLimit-Policy': this.policy,
      RateLimit: `"default";r=${remaining};t=${remaining > 0 ? 0 : this.waitSeconds(shared)}`,
    };
  }

  private refusal(held: HeldTokens): RateLimitedError {
    const rate = this.config.rateLimitPerSecond;
    const wait = this.waitSeconds(held.shared);
    const headers = this.headers(0, held.shared);
    return new RateLimitedError(wait, `This API key is limited to ${rate} requests per second. Retry after ${wait} s.`)
      .withHeader('RateLimit-Policy', headers['RateLimit-Policy'])
      .withHeader('RateLimit', headers.RateLimit);
  }
}
