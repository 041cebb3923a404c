import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { Clock } from '../common/clock.js';
import { DatabaseOutage } from '../common/ops/database-outage.js';
import { Tracing } from '../common/tracing/tracing.js';
import { StandbyHorizon } from '../events/index.js';
import { AppConfig } from '../config/app-config.js';
import { DATABASE_URL } from '../database/database.module.js';
import { ClaimPacer, leaseOutlastsAttempt } from './claim-pacer.js';
import { DeliveryAttempt } from './delivery-attempt.js';
import { DeliveryRecorder } from './delivery-recorder.js';
import { DeliveryWakeup } from './delivery-wakeup.js';
import { DeliveryClaimsRepository, type ClaimedDelivery } from './delivery-claims.repository.js';
import { SEND_TIMEOUT_MS } from './webhook-sender.js';

export const DISPATCH_POLL_MS = 1000;
const timeout = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A claimed delivery waiting for a send slot, with when it was claimed (monotonic ms, read before the claim). */
interface Ready {
  claimed: ClaimedDelivery;
  claimedAtMs: number;
}

/**
 * Sends webhook deliveries (ROLE all or worker). Woken by NOTIFY (DeliveryWakeup)
 * and by a 1 s poll, it claims due deliveries with SKIP LOCKED and a lease, in
 * batches sized by ClaimPacer (the free send slots plus a prefetch that keeps
 * the slots busy while the next claim is on its way), sends at most
 * WEBHOOK_DISPATCH_CONCURRENCY at once (DeliveryAttempt), and hands each
 * outcome to DeliveryRecorder, which commits them in batches. A delivery is never sent by two workers at once
 * unless a lease ran out (one held ready too long is given back, not sent); one not recorded is sent again.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private active = false;
  /** Claimed and not yet recorded (the lease is still ours); `done` settles when it is recorded, null while it waits for a slot. */
  private readonly inFlight = new Map<string, { claimed: ClaimedDelivery; done: Promise<void> | null }>();
  /** Claimed, waiting for a send slot, in claim order. */
  private ready: Ready[] = [];
  /** HTTP attempts under way: the bounded concurrency. A finished attempt frees its slot while its result waits to be recorded. */
  private sending = 0;
  private readonly pacer: ClaimPacer;
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  /** Leases being given back (deliveries held ready too long). */
  private readonly releasing = new Set<Promise<number>>();
  private stopping: Promise<void> | null = null;
  private readonly wakeup: DeliveryWakeup;

  constructor(
    private readonly deliveries: DeliveryClaimsRepository,
    private readonly attempt: DeliveryAttempt,
    private readonly recorder: DeliveryRecorder,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly tracing: Tracing,
    @Inject(DATABASE_URL) databaseUrl: string,
    private readonly outage: DatabaseOutage,
    private readonly horizon: StandbyHorizon,
  ) {
    this.wakeup = new DeliveryWakeup(databaseUrl, () => this.wake(), outage, this.logger);
    this.pacer = new ClaimPacer(config.webhookDispatchConcurrency);
  }

  onApplicationBootstrap(): void {
    if (!this.config.runsWorker) return;
    this.active = true;
    if (this.config.webhookAllowPrivateTargets) {
      this.logger.warn(
        'WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhooks may go to http and private addresses. For development and tests only.',
      );
    }
    this.wakeup.start();
    // EVENTS_WAIT_FOR_STANDBY: a first attempt waits for a standby to hold its event; each advance may free some.
    this.horizon.onAdvance(() => this.wake());
    this.wake();
  }

  @Interval('webhook-dispatch', DISPATCH_POLL_MS)
  poll(): void {
    this.wake();
  }

  /** Claim and send whatever is due (coalesced: one claim loop at a time). */
  wake(): void {
    if (!this.active) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claimLoop().finally(() => {
      this.claiming = null;
      if (this.claimAgain) {
        this.claimAgain = false;
        this.wake();
      }
    });
  }

  /** Resolves when nothing is claimed, in flight, being recorded or given back (tests). */
  async idle(): Promise<void> {
    while (this.claiming || this.inFlight.size > 0 || this.recorder.inProgress || this.releasing.size > 0) {
      const sends = [...this.inFlight.values()].map((f) => f.done);
      await Promise.allSettled([this.claiming, this.recorder.inProgress, ...this.releasing, ...sends]);
    }
  }

  private async claimLoop(): Promise<void> {
    const concurrency = this.config.webhookDispatchConcurrency;
    while (this.active) {
      // Back-pressure: do not run ahead of the database recording results.
      if (this.inFlight.size - this.sending - this.ready.length >= 2 * concurrency) return;
      const want = this.pacer.want({ sending: this.sending, ready: this.ready.length });
      if (want === 0) return;
      const claimedAtMs = performance.now();
      const claimed = await this.claim(want);
      if (!claimed) return;
      for (const c of claimed) {
        this.inFlight.set(c.id, { claimed: c, done: null });
        this.ready.push({ claimed: c, claimedAtMs });
      }
      this.pump();
      if (claimed.length < want) return;
    }
  }

  /** Due deliveries, with their events; null when there is nothing to send or the claim failed (the next wake tries again). */
  private async claim(want: number): Promise<ClaimedDelivery[] | null> {
    try {
      const claimed = await this.deliveries.claim(this.clock.now(), want, this.config.webhookLeaseMs / 1000, this.horizon.before());
      if (claimed.length === 0) return null;
      if (!this.active) {
        await this.release(claimed);
        return null;
      }
      return claimed;
    } catch (err) {
      // An unreachable database is logged once per outage (DatabaseOutage), not at every 1 s poll.
      if (!this.outage.backgroundFailed(err, 'the webhook dispatcher')) this.logger.warn({ err }, 'could not claim deliveries; will retry');
      return null;
    }
  }

  /** Starts ready deliveries while send slots are free; one whose lease would not outlast its attempt is given back. */
  private pump(): void {
    const concurrency = this.config.webhookDispatchConcurrency;
    const now = performance.now();
    const stale: ClaimedDelivery[] = [];
    while (this.active && this.sending < concurrency && this.ready.length > 0) {
      const { claimed, claimedAtMs } = this.ready.shift()!;
      if (!leaseOutlastsAttempt(claimedAtMs, now, this.config.webhookLeaseMs)) {
        stale.push(claimed);
        continue;
      }
      this.sending++;
      this.inFlight.set(claimed.id, { claimed, done: this.deliver(claimed) });
    }
    if (stale.length > 0) this.giveBack(stale);
  }

  private giveBack(stale: ClaimedDelivery[]): void {
    const released = this.release(stale).then((n) => {
      for (const c of stale) this.inFlight.delete(c.id);
      this.logger.warn({ released: n }, 'gave back deliveries held ready too long for their lease; they are sent again');
      return n;
    });
    this.releasing.add(released);
    void released.finally(() => {
      this.releasing.delete(released);
      this.wake();
    });
  }

  private async deliver(c: ClaimedDelivery): Promise<void> {
    await Promise.resolve(); // let pump register this delivery as in flight first
    let slot = true;
    const freeSlot = () => {
      if (!slot) return;
      slot = false;
      this.sending--;
      this.pacer.finished();
      this.pump();
      this.wake();
    };
    try {
      const outcome = await this.attempt.run(c, this.tracing.enabled ? c.traceContext : null);
      freeSlot();
      await this.recorder.record({ claimed: c, outcome });
    } catch (err) {
      // Not recorded: sent again after its lease. An unreachable database is the outage's one line, not one per delivery.
      if (!this.outage.backgroundFailed(err, 'the webhook dispatcher'))
        this.logger.warn({ delivery_id: c.id, err }, 'could not record a delivery attempt; it will be retried after its lease');
    } finally {
      freeSlot();
      this.inFlight.delete(c.id);
      this.wake();
    }
  }

  /**
   * SIGTERM (and app.close): stop claiming, give back what waits for a slot,
   * let what is in flight finish (each send ends within its 10 s timeout) and
   * be recorded, give back any lease still held, then let the process exit.
   */
  beforeApplicationShutdown(): Promise<void> {
    this.stopping ??= this.stop();
    return this.stopping;
  }

  private async stop(): Promise<void> {
    const wasActive = this.active;
    this.active = false;
    this.wakeup.stop();
    if (wasActive) await this.drain();
    await this.attempt.close();
  }

  private async drain(): Promise<void> {
    await this.claiming;
    await Promise.allSettled([...this.releasing]);
    const waiting = this.ready.map((r) => r.claimed);
    this.ready = [];
    if (waiting.length > 0) {
      await this.release(waiting);
      for (const c of waiting) this.inFlight.delete(c.id);
    }
    const pending = [...this.inFlight.values()].flatMap((f) => (f.done ? [f.done] : []));
    if (pending.length > 0) {
      this.logger.log({ in_flight: pending.length }, 'shutting down: finishing deliveries in flight');
      await Promise.race([Promise.allSettled(pending), timeout(SEND_TIMEOUT_MS + 5_000)]);
    }
    await this.recorder.inProgress;
    const left = [...this.inFlight.values()].map((f) => f.claimed);
    if (left.length > 0)
      this.logger.warn({ released: await this.release(left) }, 'shutting down: released leases of deliveries still in flight');
  }

  /** Gives leases back so another worker sends these at once; if that fails, the leases simply run out. */
  private async release(claimed: ClaimedDelivery[]): Promise<number> {
    try {
      return await this.deliveries.release(claimed.map((c) => c.claimToken));
    } catch (err) {
      this.logger.warn({ err, deliveries: claimed.length }, 'could not release leases; they run out by themselves');
      return 0;
    }
  }
}
