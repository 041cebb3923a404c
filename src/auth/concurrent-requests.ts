import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ServerResponse } from 'node:http';
import { DomainError } from '../common/errors/domain-error.js';
import { sendProblem } from '../common/errors/problem.filter.js';
import { RateLimitedError } from '../common/errors/problems.js';
import { declarationOf } from '../common/http/route-declaration.js';
import { announcesBody } from '../common/http/unread-bodies.js';
import '../common/http/request-place.js';
import { AppConfig, CONCURRENCY_QUEUE_WAIT_MS } from '../config/app-config.js';

/** Requests of one key that may wait at once (what a wait costs is a socket and a request object, no CPU). */
export const QUEUED_PER_KEY = 256;
/**
 * RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers-09) on every keyed answer: the rate (`q` requests per `w`
 * seconds), then the requests under way at once (quota unit `concurrency`).
 */
export const rateLimitPolicy = (config: Pick<AppConfig, 'rateLimitPerSecond' | 'concurrentRequestsPerKey'>): string =>
  `"default";q=${config.rateLimitPerSecond};w=1, "concurrency";q=${config.concurrentRequestsPerKey};qu="concurrency"`;

/** Gives a request's place back (once; later calls do nothing). */
type GiveBack = () => void;

interface Waiter {
  admit: () => void;
  refuse: (err: DomainError) => void;
  timer: NodeJS.Timeout;
}
/** One key's requests in this process: under way, and waiting (first come, first served). */
interface Lane {
  running: number;
  waiting: Waiter[];
}

/**
 * The concurrent requests limiter Stripe describes beside its rate limiter: a key may have
 * CONCURRENT_REQUESTS_PER_KEY requests under way at once in each process (from its first hook until its answer is
 * made, its client goes, or it starts to wait without working), up to QUEUED_PER_KEY more wait in line for one to
 * finish, each at most CONCURRENCY_QUEUE_WAIT_MS and holding no CPU, and the rest are answered 429 `rate_limited`
 * with `Retry-After: 1`. A firm bursting in parallel then takes its turns on the event loop among the others'
 * requests instead of ahead of them; the rate limit bounds how many it sends, this how many it has the CPU for at once.
 */
@Injectable()
export class ConcurrentRequests {
  private readonly lanes = new Map<string, Lane>();
  private readonly perKey: number;
  /** Every keyed answer's RateLimit-Policy: the rate, then this limit. */
  private readonly headerPolicy: string;

  constructor(config: AppConfig) {
    this.perKey = config.concurrentRequestsPerKey;
    this.headerPolicy = rateLimitPolicy(config);
  }

  /**
   * A place for one of the key's requests (`key`: its lane), given back when `res` closes (answered, or its client
   * gone) or when the returned function is called, whichever is first: the function at once when there is a place, a
   * promise of it while the request waits in line; throws (or rejects with) 429 when the line is full or the wait is over.
   */
  enter(key: string, res: ServerResponse): GiveBack | Promise<GiveBack> {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, waiting: [] }));
    const held = lane;
    if (held.running < this.perKey) {
      held.running++;
      return this.holdUntilClosed(key, held, res);
    }
    if (held.waiting.length >= QUEUED_PER_KEY) throw this.refusal();
    return new Promise<GiveBack>((resolve, reject) => {
      const waiter: Waiter = {
        // Handed the place of a request that finished (running stays as it was).
        admit: () => {
          clearTimeout(waiter.timer);
          res.off('close', gone);
          resolve(this.holdUntilClosed(key, held, res));
        },
        refuse: (err) => {
          clearTimeout(waiter.timer);
          res.off('close', gone);
          reject(err);
        },
        timer: setTimeout(() => this.drop(held, waiter) && waiter.refuse(this.refusal()), CONCURRENCY_QUEUE_WAIT_MS),
      };
      // A client that leaves while waiting gives its place in line up (its request ends there).
      const gone = () => this.drop(held, waiter) && waiter.refuse(this.refusal());
      res.once('close', gone);
      held.waiting.push(waiter);
    });
  }

  /** The place is the request's until its response closes or it gives it back, once. */
  private holdUntilClosed(key: string, lane: Lane, res: ServerResponse): GiveBack {
    let held = true;
    const giveBack = () => {
      if (!held) return;
      held = false;
      res.off('close', giveBack);
      this.leave(key, lane);
    };
    res.once('close', giveBack);
    return giveBack;
  }

  /** Places taken now, of every key (a test's condition to poll; the lanes are few: one per key with requests under way). */
  taken(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.running;
    return n;
  }

  /** A request of the key finished: the first one waiting takes its place. */
  private leave(key: string, lane: Lane): void {
    const next = lane.waiting.shift();
    if (next) return next.admit();
    lane.running--;
    if (lane.running === 0 && this.lanes.get(key) === lane) this.lanes.delete(key);
  }

  private drop(lane: Lane, waiter: Waiter): boolean {
    const at = lane.waiting.indexOf(waiter);
    if (at >= 0) lane.waiting.splice(at, 1);
    return at >= 0;
  }

  private refusal(): RateLimitedError {
    return new RateLimitedError(
      1,
      `This API key may have ${this.perKey} requests under way at once; wait for one to finish. Retry after 1 s.`,
    )
      .withHeader('RateLimit-Policy', this.headerPolicy)
      .withHeader('RateLimit', '"concurrency";r=0;t=1');
  }
}

/** The lane of a request: its API key (a digest of it, so no key is kept), or undefined when it carries none. */
function laneOf(authorization: string | undefined): string | undefined {
  const key = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  return key === undefined ? undefined : createHash('sha256').update(key).digest('base64url');
}

/**
 * The first stage of a keyed route's request, before its key is looked up and its body read: the request takes one
 * of its key's places, waits in line for one, or is answered 429 (closing the connection when a body was announced,
 * as every refusal before the body does). First, because everything after it is what a burst costs the others (the
 * key's lookup, the body, the handler): a refused request costs no more than one the access check refuses. The lane
 * is the key as presented, so a request can only take places of a key it holds; one with a key that is not valid
 * holds its place until the access check refuses it, a moment later.
 */
export function limitConcurrentRequests(fastify: FastifyInstance, limiter: ConcurrentRequests): void {
  fastify.addHook('onRequest', (req, reply, done) => {
    const d = declarationOf(req);
    const lane = d?.access.kind === 'key' ? laneOf(req.headers.authorization) : undefined;
    if (lane === undefined) return done();
    const refuse = (err: unknown) => {
      if (!(err instanceof DomainError)) return done(err as Error);
      if (announcesBody(req.headers) || d?.body.kind !== 'none') reply.header('connection', 'close');
      sendProblem(reply, req.id, err);
    };
    const hold = (giveBack: GiveBack) => {
      req.stepAside = giveBack;
      done();
    };
    let place: GiveBack | Promise<GiveBack>;
    try {
      place = limiter.enter(lane, reply.raw);
    } catch (err) {
      return refuse(err);
    }
    if (typeof place === 'function') hold(place);
    else place.then(hold, refuse);
  });
  // The answer is made: sending it (a recording streamed to a slow client) is the network's work, not the CPU's.
  fastify.addHook('onSend', (req, _reply, payload, done) => {
    req.stepAside?.();
    done(null, payload);
  });
}
