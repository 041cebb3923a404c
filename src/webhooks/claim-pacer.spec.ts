import { ClaimPacer, LEASE_MARGIN_MS, MAX_CLAIM_BATCH, PREFETCH_MS, leaseOutlastsAttempt } from './claim-pacer';
import { SEND_TIMEOUT_MS } from './webhook-sender';

describe('leaseOutlastsAttempt', () => {
  const lease = 60_000;
  const lastStart = lease - SEND_TIMEOUT_MS - LEASE_MARGIN_MS;

  it('an attempt starts while its whole deadline and the margin fit in the lease taken at the claim', () => {
    expect(leaseOutlastsAttempt(1_000, 1_000, lease)).toBe(true);
    expect(leaseOutlastsAttempt(1_000, 1_000 + lastStart, lease)).toBe(true);
  });

  it('a delivery held ready past that point is not sent on its lease', () => {
    expect(leaseOutlastsAttempt(1_000, 1_000 + lastStart + 1, lease)).toBe(false);
    // The shortest lease allowed (15 s) leaves 3 s to start.
    expect(leaseOutlastsAttempt(0, 3_001, 15_000)).toBe(false);
    expect(leaseOutlastsAttempt(0, 3_000, 15_000)).toBe(true);
  });
});

describe('ClaimPacer', () => {
  let now = 0;
  const pacer = (concurrency = 64) => new ClaimPacer(concurrency, () => now);
  /** `count` sends finishing evenly over `ms`. */
  const sends = (p: ClaimPacer, count: number, ms: number) => {
    for (let i = 0; i < count; i++) {
      now += ms / count;
      p.finished();
    }
  };
  beforeEach(() => (now = 0));

  it('with no measured sends it claims only the free slots, so an idle worker holds no lease it cannot use', () => {
    const p = pacer();
    expect(p.prefetch()).toBe(0);
    expect(p.want({ sending: 0, ready: 0 })).toBe(64);
    expect(p.want({ sending: 64, ready: 0 })).toBe(0);
  });

  it('a fast worker claims ahead of its sends: what it sends in PREFETCH_MS, at most its concurrency', () => {
    const p = pacer();
    sends(p, 100, 1_000); // 100/s: 25 in 250 ms
    expect(p.prefetch()).toBe(Math.ceil((100 / 1_000) * PREFETCH_MS));
    expect(p.want({ sending: 64, ready: 0 })).toBe(25);
    sends(p, 4_000, 1_000); // 4,000/s: more than the concurrency in 250 ms
    expect(p.prefetch()).toBe(64);
    expect(p.want({ sending: 0, ready: 0 })).toBe(128);
  });

  it('the prefetch shrinks when sends slow down, and restarts from the measure after a quiet spell', () => {
    const p = pacer();
    sends(p, 4_000, 1_000);
    sends(p, 10, 1_000);
    expect(p.prefetch()).toBeLessThan(64);
    now += 5_000;
    expect(p.prefetch()).toBe(0);
  });

  it('skips a claim for fewer than a quarter of the slots while sends are under way', () => {
    const p = pacer();
    expect(p.want({ sending: 60, ready: 0 })).toBe(0);
    expect(p.want({ sending: 48, ready: 0 })).toBe(16);
    expect(p.want({ sending: 0, ready: 0 })).toBe(64);
  });

  it('never asks one statement for more than MAX_CLAIM_BATCH', () => {
    const p = pacer(1000);
    sends(p, 100_000, 1_000);
    expect(p.want({ sending: 0, ready: 0 })).toBe(MAX_CLAIM_BATCH);
  });
});
