import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { UnauthorizedError } from '../common/errors/problems.js';
import type { ApiPrincipal } from '../common/http/principal.js';
import type { KeyStandingRow } from './key-standing.js';
import { KeyStandingRepository } from './key-standing.repository.js';
import { PrincipalCache } from './principal-cache.js';

/**
 * Judges the key's standing read in a route's own statement (key-standing.ts): a key revoked or expired since its
 * principal was cached fails with the same 401 as a fresh lookup would give, in whichever process it is next used.
 */
@Injectable()
export class KeyStanding {
  constructor(
    private readonly standings: KeyStandingRepository,
    private readonly principals: PrincipalCache,
    private readonly clock: Clock,
  ) {}

  /** The firm's timezone when the key is still good; otherwise 401 (and this process forgets the principal). */
  confirm(principal: ApiPrincipal, standing: KeyStandingRow | null): string {
    const refusal = this.refusal(standing);
    if (refusal) {
      this.principals.forget(principal.keyId);
      throw refusal;
    }
    return standing!.firmTimezone;
  }

  /** Statement 1 of a keyed list: the key's standing, the firm's timezone and as_of (read before the page). */
  async listStart(principal: ApiPrincipal, asOfMarginMs: number): Promise<{ timezone: string; asOf: string }> {
    const row = await this.standings.standingWithAsOf(principal, asOfMarginMs);
    return { timezone: this.confirm(principal, row), asOf: row!.asOf };
  }

  private refusal(standing: KeyStandingRow | null): UnauthorizedError | null {
    if (!standing) return new UnauthorizedError('The API key is not valid.');
    if (standing.keyRevokedAt) return new UnauthorizedError('The API key has been revoked.');
    if (standing.keyExpiresAt && standing.keyExpiresAt.getTime() <= this.clock.now().getTime())
      return new UnauthorizedError('The API key has expired.');
    return null;
  }
}
