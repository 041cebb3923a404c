import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Gauge, type Metric } from 'prom-client';
import { runInBackground } from '../common/background.js';
import type { CarriedPosition } from '../common/ids.js';
import { DatabaseOutage } from '../common/ops/database-outage.js';
import { AppConfig } from '../config/app-config.js';
import { Replication, type ReplicationSample } from '../database/replication.js';

/** How often the horizon is read while events wait on it: each event waits about two of these beyond the standby's own lag. */
export const HORIZON_TICK_MS = 10;
/** Readings kept while a standby lags (the oldest go first in resolution, never in order: every other one is dropped). */
const MAX_PENDING = 2_000;
/** Nothing published yet (or the process has not read the database): no event is listable. */
const NOTHING: CarriedPosition = { history: 0, txid: '0' };

interface Pending {
  history: number;
  xmin: string;
  insertedTo: bigint;
  at: number;
}

/**
 * EVENTS_WAIT_FOR_STANDBY=true: the events feed lists, and the dispatcher sends, only events a streaming standby has
 * flushed, so a promotion never takes back an event a reader or receiver was given. Every HORIZON_TICK_MS one
 * statement reads this server's snapshot xmin, its WAL insert position after that snapshot (every transaction below
 * the xmin committed before it) and the furthest position a standby flushed (Replication.sample). Once a standby has
 * flushed past a reading's position, every event of that history below its xmin is held by the standby: the horizon
 * moves to (history, xmin), and the feed's waiting requests and the dispatcher are woken. Without a streaming standby
 * nothing new is published; that is logged once and shown by `events_publication_blocked`.
 *
 * Off (the default), `before()` is null and nothing runs. The loop starts on the first `before()` (a process that never
 * lists events or sends deliveries, such as the CLI, never reads it).
 */
@Injectable()
export class StandbyHorizon implements OnModuleDestroy {
  private readonly logger = new Logger('EventsPublication');
  private published: CarriedPosition = NOTHING;
  private pending: Pending[] = [];
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private blockedSince: number | null = null;
  private readonly blocked: Gauge = new Gauge({
    name: 'events_publication_blocked',
    help: 'EVENTS_WAIT_FOR_STANDBY: 1 while no standby streams, so no new event is listed or sent; else 0.',
    registers: [],
    collect: (): void => this.blocked.set(this.blockedSince === null ? 0 : 1),
  });
  private readonly lag: Gauge = new Gauge({
    name: 'events_publication_lag_seconds',
    help: 'EVENTS_WAIT_FOR_STANDBY: age of the oldest reading of committed events that no standby has flushed yet.',
    registers: [],
    collect: (): void => this.lag.set(this.pending.length === 0 ? 0 : (Date.now() - this.pending[0].at) / 1000),
  });

  constructor(
    private readonly config: AppConfig,
    private readonly replication: Replication,
    private readonly outage: DatabaseOutage,
  ) {}

  get metrics(): Metric[] {
    return [this.blocked, this.lag];
  }

  /** The position events must be before to be listed or sent; null when no standby is waited for. */
  before(): CarriedPosition | null {
    if (!this.config.eventsWaitForStandby) return null;
    if (!this.running) this.start();
    return this.published;
  }

  /** Called (outside any request) each time the horizon moves. */
  onAdvance(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onModuleDestroy(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
  }

  private start(): void {
    this.running = true;
    runInBackground(() => void this.tick());
  }

  private async tick(): Promise<void> {
    try {
      this.take(await this.replication.sample());
    } catch (err) {
      if (!this.outage.backgroundFailed(err, 'the events publication')) this.logger.warn({ err }, 'could not read the standby position');
    }
    if (this.running) this.timer = setTimeout(() => void this.tick(), HORIZON_TICK_MS);
  }

  private take(sample: ReplicationSample): void {
    if (sample.history === null) return;
    this.note(sample.standbyFlushedTo !== null);
    // A new history (a promotion): readings of the old one say nothing of what this server's standby holds.
    if (sample.history !== this.pending.at(-1)?.history) this.pending = this.pending.filter((p) => p.history === sample.history);
    if (sample.history > this.published.history) this.advance({ history: sample.history, txid: '0' });
    if (this.pending.at(-1)?.xmin !== sample.xmin)
      this.pending.push({ history: sample.history, xmin: sample.xmin, insertedTo: sample.insertedTo, at: Date.now() });
    if (this.pending.length > MAX_PENDING) this.pending = this.pending.filter((_, i) => i % 2 === 1);
    const flushed = sample.standbyFlushedTo;
    if (flushed === null) return;
    let held: Pending | null = null;
    while (this.pending.length > 0 && this.pending[0].insertedTo <= flushed) held = this.pending.shift()!;
    if (held) this.advance({ history: held.history, txid: held.xmin });
  }

  private advance(to: CarriedPosition): void {
    this.published = to;
    for (const listener of this.listeners) listener();
  }

  /** Logged once when publication stops for want of a standby, once when it resumes. */
  private note(standbyStreams: boolean): void {
    if (!standbyStreams && this.blockedSince === null) {
      this.blockedSince = Date.now();
      this.logger.warn(
        'EVENTS_WAIT_FOR_STANDBY=true and no standby streams from the database (or this role lacks pg_monitor to see it): new events are not listed or sent until one does',
      );
    } else if (standbyStreams && this.blockedSince !== null) {
      this.logger.log({ blocked_ms: Date.now() - this.blockedSince }, 'a standby streams again: new events are listed and sent');
      this.blockedSince = null;
    }
  }
}
