import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { RateLimitedError } from '../common/errors/problems.js';
import { AppConfig } from '../config/app-config.js';
import { RateLimitRepository } from './rate-limit.repository.js';

/** Headers to put on the answer (RateLimit-Policy / RateLimit, draft-ietf-httpapi-ratelimit-headers-09). */
export type RateLimitHeaders = Record<string, string>;

/**
 * The general per-key limit: a token bucket of RATE_LIMIT_BURST tokens refilled
 * at RATE_LIMIT_PER_SECOND, kept in PostgreSQL so every api process shares it.
 */
@Injectable()
export class RateLimitService {
  constructor(
    private readonly repo: RateLimitRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** Takes one request from the key's bucket; returns the headers, or throws 429 rate_limited (headers attached). */
  async take(keyId: string): Promise<RateLimitHeaders> {
    const rate = this.config.rateLimitPerSecond;
    const state = await this.repo.take(keyId, rate, this.config.rateLimitBurst, this.clock.now());
    const remaining = Math.max(0, Math.floor(state.tokens));
    // Seconds until a whole token is back (at least 1: headers count whole seconds).
    const wait = Math.max(1, Math.ceil((1 - state.tokens) / rate));
    const headers = {
      'RateLimit-Policy': `"default";q=${rate};w=1`,
      RateLimit: `"default";r=${remaining};t=${remaining > 0 ? 0 : wait}`,
    };
    if (!state.allowed) {
      throw new RateLimitedError(wait, `This API key is limited to ${rate} requests per second. Retry after ${wait} s.`)
        .withHeader('RateLimit-Policy', headers['RateLimit-Policy'])
        .withHeader('RateLimit', headers.RateLimit);
    }
    return headers;
  }
}
