import { createFirm, type TestFirm } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

const HOUR = 3_600_000;

describe('general per-key rate limit', () => {
  let a: TestApp;
  let b: TestApp;
  let firm: TestFirm;
  beforeAll(async () => {
    const env = { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '3' };
    a = await startTestApp({ env });
    // A second api process on the same database: the count is shared.
    b = await startTestApp({ env, databaseUrl: a.databaseUrl });
    firm = await createFirm(a.app);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('answers 429 rate_limited with Retry-After once the burst is spent across two processes, with headers on every keyed answer', async () => {
    const key = firm.keys.read;
    // The bucket is stamped an hour ahead, so no token comes back while the test runs, however slow the machine.
    a.clock.advance(HOUR);
    const first = await a.get('/v1/account', { key });
    a.clock.reset();
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=1;w=1, "concurrency";q=2;qu="concurrency"');
    expect(first.headers.get('ratelimit')).toBe('"default";r=2;t=0');
    expect((await b.get('/v1/account', { key })).headers.get('ratelimit')).toBe('"default";r=1;t=0');
    expect((await a.get('/v1/account', { key })).headers.get('ratelimit')).toBe('"default";r=0;t=1');

    const refused = await b.get('/v1/account', { key });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('ratelimit')).toBe('"default";r=0;t=1');
    expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=1;w=1, "concurrency";q=2;qu="concurrency"');
    expect((await a.get('/v1/account', { key })).status).toBe(429);

    // Per key: another key of the same firm has its own bucket.
    expect((await a.get('/v1/account', { key: firm.keys['read-update-leads'] })).status).toBe(200);
    // Unkeyed answers carry no rate-limit headers.
    expect((await a.get('/v1/health')).headers.get('ratelimit')).toBeNull();

    // Time refills the bucket.
    a.clock.advance(HOUR + 2000);
    expect((await a.get('/v1/account', { key })).status).toBe(200);
  });
});
