import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { DatabaseOutage } from '../common/ops/database-outage.js';
import { DATABASE_URL } from '../database/database.module.js';
import { EventsListener } from './events-listener.js';

/**
 * Why a wait for the next notification ended: an event of the firm committed ('woken'), the LISTEN connection was
 * (re)established so anything may have been missed ('recheck'), the time given ran out ('tick'), shutdown, or the
 * client left.
 */
export type WaitOutcome = 'woken' | 'recheck' | 'tick' | 'stopped' | 'gone';
type Wake = 'woken' | 'recheck';

/**
 * One waiting request's interest in a firm's new events (of one type, or any).
 * A notification that arrives while its holder is querying is kept, so the
 * next `next()` returns at once: nothing committed after subscribing is missed.
 */
export class EventSubscription {
  private pending: Wake | null = null;
  private stopped = false;
  private settle: ((outcome: WaitOutcome) => void) | null = null;

  constructor(
    readonly orgId: string,
    readonly type: string | undefined,
    private readonly release: (sub: EventSubscription) => void,
  ) {}

  wake(why: Wake): void {
    if (this.settle) this.settle(why);
    else if (this.pending !== 'woken') this.pending = why;
  }

  stop(): void {
    this.stopped = true;
    this.settle?.('stopped');
  }

  /** Resolves on a notification, after `ms` ('tick'), at shutdown, or when `gone` aborts (the client left). */
  next(ms: number, gone?: AbortSignal): Promise<WaitOutcome> {
    if (this.stopped) return Promise.resolve('stopped');
    if (gone?.aborted) return Promise.resolve('gone');
    if (this.pending) {
      const why = this.pending;
      this.pending = null;
      return Promise.resolve(why);
    }
    return new Promise((resolve) => {
      const onGone = () => done('gone');
      const timer = setTimeout(() => done('tick'), ms);
      const done = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        gone?.removeEventListener('abort', onGone);
        this.settle = null;
        resolve(outcome);
      };
      gone?.addEventListener('abort', onGone, { once: true });
      this.settle = done;
    });
  }

  close(): void {
    this.settle?.('gone');
    this.release(this);
  }
}

/**
 * The waiting requests of this process (GET /v1/events?wait=), by firm. They
 * hold no database connection: one LISTEN connection per process, opened by
 * the first wait, wakes only the waiters of the firm (and type) whose event
 * committed. On (re)connecting, every waiter re-checks once. At shutdown every
 * waiter is answered at once.
 */
@Injectable()
export class EventWaits implements OnModuleDestroy {
  private readonly logger = new Logger('EventsWait');
  private readonly byOrg = new Map<string, Set<EventSubscription>>();
  private readonly listener: EventsListener;
  private stopped = false;

  constructor(@Inject(DATABASE_URL) databaseUrl: string, outage: DatabaseOutage) {
    this.listener = new EventsListener(
      databaseUrl,
      { notified: (p) => this.notified(p), connected: () => this.wakeAll() },
      outage,
      this.logger,
    );
  }

  /** False until the first wait has its LISTEN in place, and while it reconnects: waiters then re-check on a tick. */
  get listening(): boolean {
    return this.listener.listening;
  }

  /** Requests waiting now, all firms. */
  get waiting(): number {
    let n = 0;
    for (const subs of this.byOrg.values()) n += subs.size;
    return n;
  }

  /** `orgId`: the feed's key (feedKeyOf), so a request waits on its own firm's events of its own mode. */
  subscribe(orgId: string, type: string | undefined): EventSubscription {
    const sub = new EventSubscription(orgId, type, (s) => this.release(s));
    if (this.stopped) {
      sub.stop();
      return sub;
    }
    this.listener.start();
    let subs = this.byOrg.get(orgId);
    if (!subs) this.byOrg.set(orgId, (subs = new Set()));
    subs.add(sub);
    return sub;
  }

  /** SIGTERM and app.close: answer every waiting request now (an empty page) rather than hold shutdown up to 30 s. */
  onModuleDestroy(): void {
    this.stopped = true;
    this.listener.stop();
    for (const subs of this.byOrg.values()) for (const sub of subs) sub.stop();
  }

  /** Payload `feed:type` (EventsRepository.insert): the feed is the firm id, or `<firm id>/test` for test events (feedKeyOf). */
  private notified(payload: string): void {
    const at = payload.indexOf(':');
    const orgId = at < 0 ? payload : payload.slice(0, at);
    const type = at < 0 ? undefined : payload.slice(at + 1);
    for (const sub of this.byOrg.get(orgId) ?? []) if (sub.type === undefined || type === undefined || sub.type === type) sub.wake('woken');
  }

  private wakeAll(): void {
    for (const subs of this.byOrg.values()) for (const sub of subs) sub.wake('recheck');
  }

  private release(sub: EventSubscription): void {
    const subs = this.byOrg.get(sub.orgId);
    if (!subs) return;
    subs.delete(sub);
    if (subs.size === 0) this.byOrg.delete(sub.orgId);
  }
}
