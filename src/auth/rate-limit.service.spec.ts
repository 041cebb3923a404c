import { AdjustableClock } from '../common/clock.js';
import type { AppConfig } from '../config/app-config.js';
import type { BucketLease, RateLimitRepository } from './rate-limit.repository.js';
import { leaseSize, RateLimitService } from './rate-limit.service.js';

/** One shared bucket with no refill (time stands still), as the lease statement would keep it. */
class FrozenBucket {
  statements = 0;
  constructor(public tokens: number) {}
  lease = (_key: string, _rate: number, _burst: number, _now: Date, want: number): Promise<BucketLease> => {
    this.statements++;
    const granted = Math.min(want, Math.floor(this.tokens));
    this.tokens -= granted;
    return Promise.resolve({ granted, tokens: this.tokens });
  };
}

const process = (bucket: FrozenBucket, perSecond: number) => {
  const clock = new AdjustableClock();
  clock.freezeAt(Date.parse('2026-05-01T00:00:00Z'));
  const config = { rateLimitPerSecond: perSecond, rateLimitBurst: 2 * perSecond } as AppConfig;
  return new RateLimitService(bucket as unknown as RateLimitRepository, config, clock);
};

const outcomes = (takes: Promise<unknown>[]) =>
  Promise.all(
    takes.map((t) =>
      t.then(
        () => 'ok',
        () => 'refused',
      ),
    ),
  );

describe('RateLimitService leases', () => {
  it('leases a tenth of a second of the rate, 1 to 1,000 tokens', () => {
    expect([1, 9, 10, 100, 5_000, 1_000_000].map(leaseSize)).toEqual([1, 1, 1, 10, 500, 1000]);
  });

  it('concurrent requests of a key with nothing held wait for one lease instead of each leasing', async () => {
    const bucket = new FrozenBucket(200);
    const api = process(bucket, 100);
    expect(await outcomes(Array.from({ length: 8 }, () => api.take('key')))).toEqual(Array(8).fill('ok'));
    expect(bucket.statements).toBe(1);
  });

  it('two processes together spend exactly what the bucket holds, one statement per batch', async () => {
    const bucket = new FrozenBucket(95);
    const [a, b] = [process(bucket, 100), process(bucket, 100)];
    const results = await outcomes(Array.from({ length: 120 }, (_, i) => (i % 2 ? a : b).take('key')));
    expect(results.filter((r) => r === 'ok')).toHaveLength(95);
    // 10 batches of 10 (the last one 5), and one empty lease per process.
    expect(bucket.statements).toBeLessThanOrEqual(10 + 2);
  });

  it('a refused process refuses locally until a token can be back', async () => {
    const bucket = new FrozenBucket(0);
    const api = process(bucket, 100);
    await expect(api.take('key')).rejects.toMatchObject({ code: 'rate_limited' });
    await expect(api.take('key')).rejects.toMatchObject({ code: 'rate_limited' });
    expect(bucket.statements).toBe(1);
  });
});
