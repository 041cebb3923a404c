import {
  CONCURRENCY_QUEUE_WAIT_MS,
  DEFAULT_CONCURRENT_REQUESTS_PER_KEY,
  DEFAULT_RATE_LIMIT_PER_SECOND,
  defaultRateLimitBurst,
} from '../../src/config/app-config';
import { createFirm } from '../support/factories';
import { servedDocument, type ServedDocument } from '../support/served-document';
import { sharedTestApp } from '../support/shared-app';
import { type TestApp } from '../support/test-app';

/**
 * The general per-key rate limit is stated where a reader of the document
 * looks (info.description, every 429), and the RateLimit header examples
 * agree with each other and with what a key gets under the default.
 */
type Json = Record<string, any>;

let t: TestApp;
let served: ServedDocument;
let doc: Json;

describe('the general rate limit', () => {
  beforeAll(async () => {
    // The default general limit, so the headers are the ones a fresh deployment sends.
    t = await sharedTestApp({ RATE_LIMIT_PER_SECOND: String(DEFAULT_RATE_LIMIT_PER_SECOND) });
    served = await servedDocument(t);
    doc = served.doc;
  });

  const Q = DEFAULT_RATE_LIMIT_PER_SECOND;
  const BURST = defaultRateLimitBurst(Q);

  it('info.description and every 429 state the default limit and burst', () => {
    const stated = `${Q} requests per second by default, in bursts of up to ${BURST}`;
    // The concurrency limit beside it: the cap, and how long a request over it waits in line.
    const atOnce = `${DEFAULT_CONCURRENT_REQUESTS_PER_KEY} requests under way at once in each api process by default`;
    const line = `(up to ${CONCURRENCY_QUEUE_WAIT_MS / 1000} s, first come first served)`;
    for (const text of [stated, atOnce, line]) expect(doc.info.description).toContain(text);
    const tooMany = served.operations().flatMap(({ label, op }) => (op.responses['429'] ? [[label, op.responses['429'].description]] : []));
    expect(tooMany.length).toBeGreaterThan(10);
    for (const [label, description] of tooMany) {
      for (const text of [stated, atOnce]) expect([label, description]).toEqual([label, expect.stringContaining(text)]);
    }
  });

  it('the RateLimit-Policy and RateLimit examples agree, and match what a key gets under the default', async () => {
    const { RateLimitPolicy, RateLimit } = doc.components.headers;
    const q = Number(/;q=(\d+)/.exec(RateLimitPolicy.example)![1]);
    const r = Number(/;r=(\d+)/.exec(RateLimit.example)![1]);
    expect(q).toBe(Q);
    expect(r).toBeLessThan(q);
    expect(RateLimit.example).toMatch(/;t=0$/);
    expect(RateLimit.description).toContain(`${BURST} by default`);
    const own = await createFirm(t.app, { publish: false });
    const answer = await t.get('/v1/account', { key: own.keys.read });
    expect(answer.headers.get('ratelimit-policy')).toBe(RateLimitPolicy.example);
    // A fresh key starts with the whole burst: r may exceed q, as the description says.
    expect(answer.headers.get('ratelimit')).toBe(`"default";r=${BURST - 1};t=0`);
  });
});
