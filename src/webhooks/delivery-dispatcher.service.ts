import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import pg from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { AccountService } from '../account/index.js';
import { Clock } from '../common/clock.js';
import { AppConfig } from '../config/app-config.js';
import { DATABASE_URL } from '../database/database.module.js';
import { EventsService, type EventEnvelope } from '../events/index.js';
import { MailService, type MailMessage } from '../mail/index.js';
import { decideDelivery, foldHealth, noSuccessFor3Days, type DeliveryDecision, type DeliveryOutcome } from './delivery-rules.js';
import { deliveryFailedNotice, endpointDisabledNotice } from './owner-notices.js';
import { SecretBox } from './secret-box.js';
import { signingKey, webhookHeaders } from './signing.js';
import { DELIVERY_CHANNEL, WebhookDeliveriesRepository, type ClaimedDelivery } from './webhook-deliveries.repository.js';
import { WebhookEndpointsRepository, type EndpointRow } from './webhook-endpoints.repository.js';
import { SEND_TIMEOUT_MS, WebhookSender } from './webhook-sender.js';
import { displayUrl } from './webhook.mapper.js';
import { NotFoundError } from '../common/errors/problems.js';

export const DISPATCH_POLL_MS = 1000;
const CLAIM_BATCH = 100;
const RECORD_BATCH = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Finished {
  claimed: ClaimedDelivery;
  outcome: DeliveryOutcome;
}

/**
 * Sends webhook deliveries (ROLE all or worker). Woken by NOTIFY on a
 * dedicated connection (reconnecting) and by a 1 s poll, it claims due
 * deliveries with SKIP LOCKED and a lease, sends at most
 * WEBHOOK_DISPATCH_CONCURRENCY at once, and records results in batches: one
 * transaction writes each attempt, its transition, the endpoint's health,
 * shutdowns and owner emails. Results are recorded only while the claim
 * still holds, so a delivery is never sent by two workers at once unless a
 * lease ran out, and one that was not recorded is sent again (at least once).
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
  private listener: pg.Client | null = null;
  private readonly droppedListeners = new WeakSet<pg.Client>();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelayMs = 500;
  private recordQueue: { item: Finished; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private recording: Promise<void> | null = null;
  private stopping: Promise<void> | null = null;
  private readonly keys = new Map<string, { sealed: string; key: Buffer }>();
  private readonly sender: WebhookSender;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly events: EventsService,
    private readonly account: AccountService,
    private readonly mail: MailService,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(DATABASE_URL) private readonly databaseUrl: string,
  ) {
    this.sender = new WebhookSender({ allowPrivateTargets: config.webhookAllowPrivateTargets });
  }

  onApplicationBootstrap(): void {
    if (!this.config.runsWorker) return;
    this.active = true;
    if (this.config.webhookAllowPrivateTargets) {
      this.logger.warn(
        'WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhooks may go to http and private addresses. For development and tests only.',
      );
    }
    void this.listen();
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
    while (this.claiming || this.inFlight.size > 0 || this.recording) {
      await Promise.allSettled([this.claiming, this.recording, ...[...this.inFlight.values()].map((f) => f.done)]);
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
      let claimed: ClaimedDelivery[];
      let envelopes: Map<string, EventEnvelope>;
      try {
        claimed = await this.deliveries.claim(this.clock.now(), want, this.config.webhookLeaseMs / 1000);
        if (claimed.length === 0) return;
        envelopes = await this.events.envelopes(claimed.map((c) => c.eventId));
      } catch (err) {
        this.logger.warn({ err: String(err) }, 'could not claim deliveries; will retry');
        return;
      }
      if (!this.active) {
        await this.deliveries.release(claimed.map((c) => c.claimToken)).catch(() => undefined);
        return;
      }
      for (const c of claimed) {
        this.sending++;
        const done = this.deliver(c, envelopes.get(c.eventId));
        this.inFlight.set(c.id, { claimed: c, done });
      }
      if (claimed.length < want) return;
    }
  }

  private async deliver(c: ClaimedDelivery, envelope: EventEnvelope | undefined): Promise<void> {
    await Promise.resolve(); // let claimLoop register this delivery as in flight first
    let slot = true;
    const freeSlot = () => {
      if (!slot) return;
      slot = false;
      this.sending--;
      this.wake();
    };
    try {
      let outcome: DeliveryOutcome;
      if (c.endpointStatus !== 'enabled') {
        outcome = { kind: 'cancelled', at: this.clock.now(), reason: 'endpoint disabled' };
      } else if (!envelope) {
        outcome = { kind: 'cancelled', at: this.clock.now(), reason: 'event no longer kept' };
      } else {
        outcome = await this.send(c, envelope);
      }
      freeSlot();
      await this.record({ claimed: c, outcome });
    } catch (err) {
      // Not recorded: the lease runs out and the delivery is sent again.
      this.logger.warn({ delivery_id: c.id, err: String(err) }, 'could not record a delivery attempt; it will be retried after its lease');
    } finally {
      freeSlot();
      this.inFlight.delete(c.id);
      this.wake();
    }
  }

  private async send(c: ClaimedDelivery, envelope: EventEnvelope): Promise<DeliveryOutcome> {
    const body = JSON.stringify(envelope);
    let key: Buffer;
    try {
      key = this.keyFor(c);
    } catch {
      this.logger.error({ endpoint_id: c.endpointId }, 'the endpoint signing secret cannot be decrypted (was WEBHOOK_SECRET_KEY changed?)');
      return {
        kind: 'attempt',
        at: this.clock.now(),
        result: { statusCode: null, durationMs: null, error: 'signing secret unavailable', responseBody: null },
      };
    }
    const at = this.clock.now();
    const result = await this.sender.post(c.url, webhookHeaders(key, envelope.id, at, body), body);
    this.logger.debug(
      {
        delivery_id: c.id,
        endpoint: displayUrl(c.url),
        status_code: result.statusCode,
        error: result.error,
        duration_ms: result.durationMs,
      },
      'webhook attempt',
    );
    return { kind: 'attempt', at, result };
  }

  private keyFor(c: ClaimedDelivery): Buffer {
    const cached = this.keys.get(c.endpointId);
    if (cached && cached.sealed === c.secretEnc) return cached.key;
    const key = signingKey(this.secrets.open(c.secretEnc, c.endpointId));
    this.keys.set(c.endpointId, { sealed: c.secretEnc, key });
    return key;
  }

  /** Group commit: results that finish while a batch is being written go in the next one. */
  private record(item: Finished): Promise<void> {
    return new Promise((resolve, reject) => {
      this.recordQueue.push({ item, resolve, reject });
      this.recording ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.recordQueue.length > 0) {
      const batch = this.recordQueue.splice(0, RECORD_BATCH);
      try {
        await this.writeResults(batch.map((b) => b.item));
        batch.forEach((b) => b.resolve());
      } catch (err) {
        batch.forEach((b) => b.reject(err));
      }
    }
    this.recording = null;
  }

  /**
   * One transaction. Lock every endpoint concerned (id order, before any
   * delivery row: the lock order every writer uses), fold the real attempts
   * into each endpoint's health and decide whether it turns off (410, or a
   * delivery exhausted after 3 days without success); a delivery whose
   * endpoint is or turns off is not kept pending. Then write the transitions
   * (only where this worker's claim still holds), the endpoint changes, and
   * the owner's emails.
   */
  private async writeResults(items: Finished[]): Promise<void> {
    const schedule = this.config.webhookRetryScheduleMs;
    const decided = items.map((f) => {
      const isTest = f.claimed.eventType === 'webhook.test';
      return {
        ...f,
        isTest,
        decision: decideDelivery({ attemptsBefore: f.claimed.attemptCount, isTest, outcome: f.outcome, scheduleMs: schedule }),
      };
    });
    let writtenCount = 0;
    await this.dataSource.transaction(async (manager) => {
      const now = this.clock.now();
      const endpoints = await this.endpoints.lockMany(manager, [...new Set(decided.map((d) => d.claimed.endpointId))].sort());
      const plans = endpoints.map((endpoint) =>
        this.planEndpoint(
          endpoint,
          decided.filter((d) => d.claimed.endpointId === endpoint.id),
          now,
        ),
      );
      const offIds = new Set(plans.filter((p) => p.endpoint.status !== 'enabled' || p.disableFor).map((p) => p.endpoint.id));
      for (const d of decided) {
        if (d.decision.status === 'pending' && offIds.has(d.claimed.endpointId)) {
          d.decision = { ...d.decision, status: 'failed', nextAttemptAt: null, completedAt: d.outcome.at };
        }
      }
      const written = await this.deliveries.applyTransitions(
        manager,
        decided.map((d) => ({ id: d.claimed.id, claimToken: d.claimed.claimToken, ...d.decision })),
      );
      writtenCount = written.size;
      const emails: MailMessage[] = [];
      for (const plan of plans) emails.push(...(await this.applyEndpointPlan(manager, plan, written, now)));
      for (const message of emails) await this.mail.enqueue(manager, message);
    });
    const lost = decided.length - writtenCount;
    if (lost > 0) this.logger.warn({ lost }, 'results not recorded: their lease had run out and another worker holds them');
  }

  /** What this batch does to one endpoint (pure). Test deliveries never count. */
  private planEndpoint(
    endpoint: EndpointRow,
    mine: { claimed: ClaimedDelivery; outcome: DeliveryOutcome; decision: DeliveryDecision; isTest: boolean }[],
    now: Date,
  ) {
    const real = mine.filter((d) => !d.isTest && d.outcome.kind === 'attempt');
    const health =
      real.length === 0
        ? null
        : foldHealth(
            { lastSuccessAt: endpoint.lastSuccessAt, lastFailureAt: endpoint.lastFailureAt, failingSince: endpoint.failingSince },
            real.map((d) => ({ at: d.outcome.at, success: d.decision.succeeded })),
          );
    const exhausted = real.filter((d) => d.decision.exhausted);
    let disableFor: 'gone' | 'failing' | null = null;
    if (endpoint.status === 'enabled') {
      if (real.some((d) => d.decision.gone)) disableFor = 'gone';
      else if (
        exhausted.length > 0 &&
        noSuccessFor3Days({ lastSuccessAt: health?.lastSuccessAt ?? endpoint.lastSuccessAt, healthSince: endpoint.healthSince }, now)
      ) {
        disableFor = 'failing';
      }
    }
    return { endpoint, health, exhausted, disableFor };
  }

  private async applyEndpointPlan(
    manager: EntityManager,
    plan: ReturnType<DeliveryDispatcher['planEndpoint']>,
    written: Set<string>,
    now: Date,
  ): Promise<MailMessage[]> {
    const { endpoint, health, disableFor } = plan;
    if (health) await this.endpoints.setHealth(manager, endpoint.id, health);
    // A result another worker now owns is that worker's to report.
    const exhausted = plan.exhausted.filter((d) => written.has(d.claimed.id));
    if (exhausted.length === 0 && !disableFor) return [];
    const emails: MailMessage[] = [];
    const to = await this.ownerEmail(endpoint.orgId);
    if (!to)
      this.logger.warn(
        { org_id: endpoint.orgId, endpoint_id: endpoint.id },
        'owner email needed for a webhook notice, but the firm has none',
      );
    if (exhausted.length > 0 && to) {
      emails.push(
        deliveryFailedNotice(
          to,
          endpoint,
          exhausted.map((d) => ({
            deliveryId: d.claimed.id,
            eventId: d.claimed.eventId,
            eventType: d.claimed.eventType,
            lastError: d.decision.attempt?.error ?? `HTTP ${d.decision.attempt?.status_code}`,
          })),
        ),
      );
    }
    if (disableFor) {
      await this.endpoints.disable(manager, endpoint.id, disableFor, now);
      const closed = await this.deliveries.closePending(manager, endpoint.id, now);
      this.logger.warn(
        { endpoint_id: endpoint.id, org_id: endpoint.orgId, reason: disableFor, closed_pending: closed },
        'webhook endpoint turned off',
      );
      if (to) emails.push(endpointDisabledNotice(to, endpoint, disableFor));
    }
    return emails;
  }

  /** LISTEN on a dedicated connection; on loss, reconnect with backoff and catch up with a claim. */
  private async listen(): Promise<void> {
    if (!this.active) return;
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'webhook-dispatcher' });
    client.on('notification', () => this.wake());
    client.on('error', (err) => {
      this.logger.warn({ err: String(err) }, 'webhook LISTEN connection failed; reconnecting');
      this.dropListener(client);
    });
    client.on('end', () => this.dropListener(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
      if (!this.active) {
        this.dropListener(client);
        return;
      }
      this.listener = client;
      this.reconnectDelayMs = 500;
      this.wake();
    } catch (err) {
      this.logger.warn({ err: String(err) }, 'could not LISTEN for webhook deliveries; retrying (the 1 s poll still runs)');
      this.dropListener(client);
    }
  }

  private dropListener(client: pg.Client): void {
    if (this.droppedListeners.has(client)) return;
    this.droppedListeners.add(client);
    if (this.listener === client) this.listener = null;
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    if (this.active && !this.reconnectTimer) {
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        void this.listen();
      }, this.reconnectDelayMs);
      this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, 30_000);
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
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    if (this.listener) this.dropListener(this.listener);
    if (!wasActive) return this.sender.close();
    await this.claiming?.catch(() => undefined);
    const pending = [...this.inFlight.values()];
    if (pending.length > 0) {
      this.logger.log({ in_flight: pending.length }, 'shutting down: finishing deliveries in flight');
      await Promise.race([Promise.allSettled(pending.map((p) => p.done)), sleep(SEND_TIMEOUT_MS + 5_000)]);
    }
    await this.recording?.catch(() => undefined);
    const left = [...this.inFlight.values()].map((f) => f.claimed.claimToken);
    if (left.length > 0) {
      const released = await this.deliveries.release(left).catch(() => 0);
      this.logger.warn({ released }, 'shutting down: released leases of deliveries still in flight');
    }
    await this.sender.close();
  }

  /** The firm's owner email; a firm that is gone has none. Any other failure fails the batch, which is recorded again. */
  private async ownerEmail(orgId: string): Promise<string | null> {
    try {
      return (await this.account.getOrg(orgId)).ownerEmail;
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }
}
