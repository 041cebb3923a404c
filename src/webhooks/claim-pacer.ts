import { SEND_TIMEOUT_MS } from './webhook-sender.js';

/** The most deliveries one claim statement takes. */
export const MAX_CLAIM_BATCH = 500;
/** A worker holds ready, beyond its sends, what it sends in this long: a freed slot then never waits for a claim's round trip. */
export const PREFETCH_MS = 250;
/** Room left between the end of an attempt's deadline and the end of its lease. */
export const LEASE_MARGIN_MS = 2_000;
/** The send rate is measured over windows of at least this long. */
const RATE_WINDOW_MS = 100;

/**
 * An attempt starts only if the lease taken when its delivery was claimed
 * outlasts the attempt's whole deadline, with a margin: a delivery held ready
 * too long (its sends stalled) is given back, never sent on a lease that could
 * run out while it is on the wire (another worker would then send it too).
 * `claimedAtMs` is read before the claim statement, so it is never later than
 * the lease's start.
 */
export function leaseOutlastsAttempt(claimedAtMs: number, nowMs: number, leaseMs: number): boolean {
  return nowMs - claimedAtMs + SEND_TIMEOUT_MS + LEASE_MARGIN_MS <= leaseMs;
}

/**
 * How many deliveries to claim: enough to fill the free send slots and a
 * prefetch sized by the measured send rate (what the worker sends in
 * PREFETCH_MS, at most its concurrency). A worker sending fast claims in large
 * batches ahead of its sends; a slow or idle one claims only what it can start,
 * so it holds no lease it cannot use. A claim is skipped while the shortfall is
 * under a quarter of the concurrency and sends are under way (one round trip
 * for a few rows costs more than it gains).
 */
export class ClaimPacer {
  /** Sends finished per millisecond, smoothed. */
  private rate = 0;
  private windowStart: number;
  private windowCount = 0;

  constructor(
    private readonly concurrency: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.windowStart = nowMs();
  }

  /** One send finished (its slot is free). */
  finished(): void {
    this.windowCount++;
    this.roll();
  }

  /** How many claimed deliveries to hold ready beyond those being sent. */
  prefetch(): number {
    this.roll();
    return Math.min(this.concurrency, Math.ceil(this.rate * PREFETCH_MS));
  }

  /** How many to claim now, given the sends under way and the deliveries already held ready; 0 for none. */
  want(held: { sending: number; ready: number }): number {
    const shortfall = this.concurrency - held.sending + this.prefetch() - held.ready;
    if (shortfall <= 0) return 0;
    const busy = held.sending + held.ready > 0;
    if (busy && shortfall < Math.max(1, Math.floor(this.concurrency / 4))) return 0;
    return Math.min(MAX_CLAIM_BATCH, shortfall);
  }

  private roll(): void {
    const now = this.nowMs();
    const elapsed = now - this.windowStart;
    if (elapsed < RATE_WINDOW_MS) return;
    const measured = this.windowCount / elapsed;
    // After a long quiet spell the old rate says nothing: start from what was measured.
    this.rate = this.rate === 0 || elapsed > 10 * RATE_WINDOW_MS ? measured : (this.rate + measured) / 2;
    this.windowStart = now;
    this.windowCount = 0;
  }
}
