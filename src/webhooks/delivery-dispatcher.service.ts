import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { Clock } from '../common/clock.js';
import { Tracing } from '../common/tracing/tracing.js';
import { AppConfig } from '../config/app-config.js';
import { DATABASE_URL } from '../database/database.module.js';
import { EventsService, type EventEnvelope } from '../events/index.js';
import { DeliveryAttempt } from './delivery-attempt.js';
import { DeliveryRecorder } from './delivery-recorder.js';
import { DeliveryWakeup } from './delivery-wakeup.js';
import { WebhookDeliveriesRepository, type ClaimedDelivery } from './webhook-deliveries.repository.js';
import { SEND_TIMEOUT_MS } from './webhook-sender.js';

export const DISPATCH_POLL_MS = 1000;
const CLAIM_BATCH = 100;
const NO_TRACES = new Map<string, string>();
const timeout = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Claimed deliveries with their events' envelopes and stored trace contexts, by event id. */
interface ClaimedBatch {
  claimed: ClaimedDelivery[];
  envelopes: Map<string, EventEnvelope>;
  traces: Map<string, string>;
}

/**
 * Sends webhook deliveries (ROLE all or worker). Woken by NOTIFY (DeliveryWakeup)
 * and by a 1 s poll, it claims due deliveries with SKIP LOCKED and a lease,
 * sends at most WEBHOOK_DISPATCH_CONCURRENCY at once (DeliveryAttempt), and
 * hands each outcome to DeliveryRecorder, which commits them in batches. A
 * delivery is never sent by two workers at once unless a lease ran out, and
 * one that was not recorded is sent again (at least once).
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDispatcher');
  private active = false;
  /** Claimed and not yet recorded (the lease is still ours), with the promise that settles when it is. */
  private readonly inFlight = new Map<string, { claimed: ClaimedDelivery; done: Promise<void> }>();
  /** HTTP attempts under way: the bounded concurrency. A finished attempt frees its slot while its result waits to be recorded. */
  private sending = 0;
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  private stopping: Promise<void> | null = null;
  private readonly wakeup: DeliveryWakeup;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly events: EventsService,
    private readonly attempt: DeliveryAttempt,
    private readonly recorder: DeliveryRecorder,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly tracing: Tracing,
    @Inject(DATABASE_URL) databaseUrl: string,
  ) {
    this.wakeup = new DeliveryWakeup(databaseUrl, () => this.wake(), this.logger);
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

  /** Resolves when nothing is claimed, in flight or being recorded (tests). */
  async idle(): Promise<void> {
    while (this.claiming || this.inFlight.size > 0 || this.recorder.inProgress) {
      await Promise.allSettled([this.claiming, this.recorder.inProgress, ...[...this.inFlight.values()].map((f) => f.done)]);
    }
  }

  inFlightCount(): number {
    return this.inFlight.size;
  }

  private async claimLoop(): Promise<void> {
    const concurrency = this.config.webhookDispatchConcurrency;
    // Claim in batches rather than one row per finished send.
    const minRoom = Math.max(1, Math.min(CLAIM_BATCH, Math.floor(concurrency / 4)));
    while (this.active) {
      const room = concurrency - this.sending;
      if (room <= 0 || (room < minRoom && this.sending > 0)) return;
      // Back-pressure: do not run ahead of the database recording results.
      if (this.inFlight.size - this.sending >= 2 * concurrency) return;
      const want = Math.min(room, CLAIM_BATCH);
      const batch = await this.claim(want);
      if (!batch) return;
      for (const c of batch.claimed) {
        this.sending++;
        this.inFlight.set(c.id, { claimed: c, done: this.deliver(c, batch.envelopes.get(c.eventId), batch.traces.get(c.eventId)) });
      }
      if (batch.claimed.length < want) return;
    }
  }

  /** Due deliveries and their events; null when there is nothing to send or the claim failed (the next wake tries again). */
  private async claim(want: number): Promise<ClaimedBatch | null> {
    try {
      const claimed = await this.deliveries.claim(this.clock.now(), want, this.config.webhookLeaseMs / 1000);
      if (claimed.length === 0) return null;
      if (!this.active) {
        await this.release(claimed);
        return null;
      }
      const eventIds = claimed.map((c) => c.eventId);
      // The events' stored trace contexts are read only when this process exports spans.
      const traces = this.tracing.enabled ? await this.events.traceContexts(eventIds) : NO_TRACES;
      return { claimed, envelopes: await this.events.envelopes(eventIds), traces };
    } catch (err) {
      this.logger.warn({ err }, 'could not claim deliveries; will retry');
      return null;
    }
  }

  private async deliver(c: ClaimedDelivery, envelope: EventEnvelope | undefined, traceContext: string | undefined): Promise<void> {
    await Promise.resolve(); // let claimLoop register this delivery as in flight first
    let slot = true;
    const freeSlot = () => {
      if (!slot) return;
      slot = false;
      this.sending--;
      this.wake();
    };
    try {
      const outcome = await this.attempt.run(c, envelope, traceContext ?? null);
      freeSlot();
      await this.recorder.record({ claimed: c, outcome });
    } catch (err) {
      // Not recorded: the lease runs out and the delivery is sent again.
      this.logger.warn({ delivery_id: c.id, err }, 'could not record a delivery attempt; it will be retried after its lease');
    } finally {
      freeSlot();
      this.inFlight.delete(c.id);
      this.wake();
    }
  }

  /**
   * SIGTERM (and app.close): stop claiming, let what is in flight finish
   * (each send ends within its 10 s timeout) and be recorded, give back any
   * lease still held, then let the process exit.
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
    const pending = [...this.inFlight.values()];
    if (pending.length > 0) {
      this.logger.log({ in_flight: pending.length }, 'shutting down: finishing deliveries in flight');
      await Promise.race([Promise.allSettled(pending.map((p) => p.done)), timeout(SEND_TIMEOUT_MS + 5_000)]);
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
