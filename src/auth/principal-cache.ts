import { Injectable } from '@nestjs/common';
import type { ApiPrincipal } from '../common/http/principal.js';

/** How long a process keeps a principal: the key's row is re-read at least this often. */
export const PRINCIPAL_TTL_MS = 30_000;
const MAX_PRINCIPALS = 10_000;

/**
 * Principals found by this process, by the SHA-256 of the whole key (so only
 * the exact key finds its entry), for routes that re-check the key's standing
 * in their own statement (key-standing.ts). Lifetimes are on the process's
 * monotonic clock, not application time: this is a cache, not a rule.
 */
@Injectable()
export class PrincipalCache {
  private readonly entries = new Map<string, { principal: ApiPrincipal; until: number }>();

  get(keyHash: Buffer): ApiPrincipal | undefined {
    const id = keyHash.toString('base64');
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.until > performance.now()) return entry.principal;
    this.entries.delete(id);
    return undefined;
  }

  set(keyHash: Buffer, principal: ApiPrincipal): void {
    if (this.entries.size >= MAX_PRINCIPALS) this.entries.clear();
    this.entries.set(keyHash.toString('base64'), { principal, until: performance.now() + PRINCIPAL_TTL_MS });
  }

  /** A key found revoked or expired: no request of this process uses it again. */
  forget(keyId: string): void {
    for (const [id, entry] of this.entries) if (entry.principal.keyId === keyId) this.entries.delete(id);
  }
}
