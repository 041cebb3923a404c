import { createFirm } from '../support/factories';
import { StatementCounter } from '../support/statement-counter';
import { startTestApp, type TestApp } from '../support/test-app';

const HOUR = 3_600_000;

/**
 * Each api process leases tokens from the key's shared bucket in batches (a
 * tenth of a second of the rate: 10 at 100/s) and spends them locally: a key
 * gets exactly its burst across two processes, with one statement per batch,
 * not one per request.
 */
describe('rate-limit leases', () => {
  let a: TestApp;
  let b: TestApp;
  const counter = new StatementCounter();
  beforeAll(async () => {
    const env = { RATE_LIMIT_PER_SECOND: '100', RATE_LIMIT_BURST: '200' };
    a = await startTestApp({ env });
    b = await startTestApp({ env, databaseUrl: a.databaseUrl });
    counter.attach(a.app);
    counter.attach(b.app);
  });
  afterAll(async () => {
    counter.detach();
    await b.close();
    await a.close();
  });

  it('spends exactly the burst across two processes, leasing 10 tokens a statement', async () => {
    const firm = await createFirm(a.app);
    const key = firm.keys.read;
    const leases = () => counter.all.filter((sql) => /rate_limit_buckets/.test(sql)).length;
    const before = leases();
    // The bucket is stamped an hour ahead, so no token comes back while the test runs, however slow the machine.
    a.clock.advance(HOUR);
    const first = await a.get('/v1/account', { key });
    a.clock.reset();
    // Frozen: a refused process asks the bucket again only once a token can be back, which then never comes.
    const now = Date.now();
    a.clock.freezeAt(now);
    b.clock.freezeAt(now);
    expect(first.headers.get('ratelimit')).toBe('"default";r=199;t=0');
    let served = 1;
    const refused = new Set<TestApp>();
    while (refused.size < 2 && served <= 400) {
      for (const t of [b, a]) {
        const answer = await t.get('/v1/account', { key });
        if (answer.status === 200) served++;
        else {
          expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 429, code: 'rate_limited' });
          expect(answer.headers.get('retry-after')).toBe('1');
          refused.add(t);
        }
      }
    }
    expect(served).toBe(200);
    // 20 leases of 10, and one empty lease per process (a refused process asks again only once a token can be back).
    expect(leases() - before).toBeLessThanOrEqual(200 / 10 + 2);
    const more = leases();
    expect((await a.get('/v1/account', { key })).status).toBe(429);
    expect(leases()).toBe(more);
    a.clock.reset();
    b.clock.reset();
  });
});
