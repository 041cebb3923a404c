import { connect, type Socket } from 'node:net';
import { ConcurrentRequests } from '../../src/auth/index';
import { waitFor } from '../support/receiver';
import { createFirm, type TestFirm } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Holds one of `key`'s places: a PATCH whose announced body never comes (the place is taken before the body is
 * read). Resolves once the request holds it.
 */
async function holdPlace(app: TestApp, key: string): Promise<Socket> {
  const socket = connect(Number(new URL(app.baseUrl).port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `PATCH /v1/leads/lead_held HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 20\r\n\r\n',
  );
  socket.on('error', () => {});
  const limiter = app.app.get(ConcurrentRequests);
  const before = limiter.taken();
  await waitFor(() => limiter.taken() > before, 'the held request to take its place', 10_000);
  return socket;
}

describe('per-key concurrent requests', () => {
  let app: TestApp;
  let firm: TestFirm;
  beforeAll(async () => {
    app = await startTestApp({ env: { CONCURRENT_REQUESTS_PER_KEY: '1', RATE_LIMIT_PER_SECOND: '1000' } });
    firm = await createFirm(app.app);
  });
  afterAll(() => app.close());

  it('states both quotas in RateLimit-Policy on every keyed answer', async () => {
    const answer = await app.get('/v1/account', { key: firm.keys.read });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ratelimit-policy')).toBe('"default";q=1000;w=1, "concurrency";q=1;qu="concurrency"');
  });

  it('lets a request over the cap wait in line, then answers 429 with Retry-After; other keys are not held up', async () => {
    const key = firm.keys['read-update-leads'];
    const held = await holdPlace(app, key);
    try {
      const started = Date.now();
      const [waited, other] = await Promise.all([
        app.get('/v1/account', { key }),
        app.get('/v1/account', { key: firm.keys['read-no-transcripts'] }),
      ]);
      expect(other.status).toBe(200);
      expect(waited.status).toBe(429);
      expect(waited.body.code).toBe('rate_limited');
      expect(waited.headers.get('retry-after')).toBe('1');
      expect(waited.headers.get('ratelimit')).toBe('"concurrency";r=0;t=1');
      expect(waited.headers.get('ratelimit-policy')).toBe('"default";q=1000;w=1, "concurrency";q=1;qu="concurrency"');
      // It waited in line (2 s) before the refusal.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    } finally {
      held.destroy();
    }
    // The client that held the place left: the key's next request has it.
    // (The server learns it from the socket's close, a moment later: the request may wait in line for it.)
    expect((await app.get('/v1/account', { key })).status).toBe(200);
  });

  it('admits the next request in line as soon as the place is given back', async () => {
    const key = firm.keys['read-update-leads'];
    const held = await holdPlace(app, key);
    const waiting = app.get('/v1/account', { key });
    setTimeout(() => held.destroy(), 300);
    expect((await waiting).status).toBe(200);
  });

  it('does not count a waiting events request while it waits', async () => {
    const key = firm.keys.read;
    const started = Date.now();
    const wait = app.get('/v1/events?wait=8', { key });
    // With the cap at 1, this would wait behind the events request and be refused after 2 s if that one kept its place.
    const account = await app.get('/v1/account', { key });
    expect(account.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_900);
    expect((await wait).status).toBe(200);
  });
});
