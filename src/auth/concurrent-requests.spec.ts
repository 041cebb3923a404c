import { jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { RateLimitedError } from '../common/errors/problems.js';
import { CONCURRENCY_QUEUE_WAIT_MS, type AppConfig } from '../config/app-config.js';
import { ConcurrentRequests, QUEUED_PER_KEY } from './concurrent-requests.js';

/** A response that only closes (what the limiter listens to). */
const response = () => new EventEmitter() as unknown as ServerResponse & { emit(event: 'close'): boolean };
const limiter = (perKey: number) => new ConcurrentRequests({ rateLimitPerSecond: 100, concurrentRequestsPerKey: perKey } as AppConfig);
/** The state of a promise, without waiting for it. */
const settled = async (p: Promise<unknown>) => {
  let state = 'waiting';
  p.then(
    () => (state = 'admitted'),
    () => (state = 'refused'),
  );
  await Promise.resolve();
  await Promise.resolve();
  return state;
};

describe('ConcurrentRequests', () => {
  // Every wait in line is timed: faked, so a request a test leaves waiting is refused by no real timer after the test.
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    jest.clearAllTimers();
    jest.useRealTimers();
  });

  it('admits a key`s first requests at once, and the next only when one of them closes, in the order they came', async () => {
    const l = limiter(2);
    const [a, b, c, d] = [response(), response(), response(), response()];
    expect(typeof l.enter('k', a)).toBe('function');
    expect(typeof l.enter('k', b)).toBe('function');
    const third = l.enter('k', c) as Promise<unknown>;
    const fourth = l.enter('k', d) as Promise<unknown>;
    expect(await settled(third)).toBe('waiting');
    a.emit('close');
    expect(await settled(third)).toBe('admitted');
    expect(await settled(fourth)).toBe('waiting');
    b.emit('close');
    expect(await settled(fourth)).toBe('admitted');
  });

  it('keeps each key to its own places', () => {
    const l = limiter(1);
    expect(typeof l.enter('k1', response())).toBe('function');
    expect(typeof l.enter('k2', response())).toBe('function');
    expect(l.enter('k1', response())).toBeInstanceOf(Promise);
  });

  it('gives a place back once, whether given back by hand, then closed, or given back twice', async () => {
    const l = limiter(1);
    const a = response();
    const giveBack = l.enter('k', a) as () => void;
    const [b, c] = [response(), response()];
    const second = l.enter('k', b) as Promise<() => void>;
    const third = l.enter('k', c) as Promise<() => void>;
    giveBack();
    giveBack();
    a.emit('close');
    expect(await settled(second)).toBe('admitted');
    // Giving back the first place three ways freed one place only: the third still waits for the second.
    expect(await settled(third)).toBe('waiting');
    (await second)();
    expect(await settled(third)).toBe('admitted');
  });

  it('answers 429 with Retry-After and both policies when the wait in line runs out', async () => {
    const l = limiter(1);
    void l.enter('k', response());
    const waiting = l.enter('k', response()) as Promise<unknown>;
    jest.advanceTimersByTime(CONCURRENCY_QUEUE_WAIT_MS - 1);
    expect(await settled(waiting)).toBe('waiting');
    jest.advanceTimersByTime(1);
    const err = await waiting.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).extra).toEqual({ retry_after: 1 });
    expect((err as RateLimitedError).headers).toEqual({
      'RateLimit-Policy': '"default";q=100;w=1, "concurrency";q=1;qu="concurrency"',
      RateLimit: '"concurrency";r=0;t=1',
    });
  });

  it('answers 429 at once when the line is full', () => {
    const l = limiter(1);
    void l.enter('k', response());
    for (let i = 0; i < QUEUED_PER_KEY; i++) expect(l.enter('k', response())).toBeInstanceOf(Promise);
    expect(() => l.enter('k', response())).toThrow(RateLimitedError);
  });

  it('drops a waiting request whose client left, so the next in line gets the place', async () => {
    const l = limiter(1);
    const a = response();
    void l.enter('k', a);
    const leaving = response();
    const left = l.enter('k', leaving) as Promise<unknown>;
    const next = l.enter('k', response()) as Promise<unknown>;
    leaving.emit('close');
    expect(await settled(left)).toBe('refused');
    a.emit('close');
    expect(await settled(next)).toBe('admitted');
  });
});
