import { Injectable, Logger } from '@nestjs/common';
import { Database, type Tx } from '../database/sql.js';
import { AccountService } from '../account/index.js';
import { Clock } from '../common/clock.js';
import { NotFoundError } from '../common/errors/problems.js';
import { AppConfig } from '../config/app-config.js';
import { MailService, type MailMessage } from '../mail/index.js';
import { decideDelivery, type DeliveryOutcome } from './delivery-rules.js';
import { planEndpoint, type DecidedDelivery, type EndpointPlan } from './endpoint-plan.js';
import { EndpointEvents } from './endpoint-events.js';
import { deliveryFailedNotice, endpointDisabledNotice } from './owner-notices.js';
import { DeliveryClaimsRepository, type ClaimedDelivery } from './delivery-claims.repository.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';

const RECORD_BATCH = 500;

export interface Finished {
  claimed: ClaimedDelivery;
  outcome: DeliveryOutcome;
}

/**
 * Records what happened to sent deliveries, group-committed: results that
 * finish while a batch is being written go together in the next one, one
 * transaction per batch. A result is written only where this worker's claim
 * still holds; one that is not written is sent again after its lease.
 */
@Injectable()
export class DeliveryRecorder {
  private readonly logger = new Logger('WebhookDispatcher');
  private queue: { item: Finished; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly claims: DeliveryClaimsRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly account: AccountService,
    private readonly mail: MailService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly db: Database,
    private readonly endpointEvents: EndpointEvents,
  ) {}

  /** Resolves once the result is committed; rejects when its batch could not be. */
  record(item: Finished): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** The batch being written, if any (shutdown and tests wait for it). */
  get inProgress(): Promise<void> | null {
    return this.flushing;
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, RECORD_BATCH);
      try {
        await this.write(batch.map((b) => b.item));
        batch.forEach((b) => b.resolve());
      } catch (err) {
        batch.forEach((b) => b.reject(err));
      }
    }
    this.flushing = null;
  }

  /**
   * One transaction: lock every endpoint concerned (id order, before any
   * delivery row: the lock order every writer uses), plan each endpoint's
   * health and shutdown, keep no delivery pending for an endpoint that is or
   * turns off, write the transitions where the claim still holds, then the
   * endpoint changes and the owner's emails.
   */
  private async write(items: Finished[]): Promise<void> {
    const scheduleMs = this.config.webhookRetryScheduleMs;
    const decided: DecidedDelivery[] = items.map((f) => {
      const isTest = f.claimed.eventType === 'webhook.test';
      return { ...f, isTest, decision: decideDelivery({ attemptsBefore: f.claimed.attemptCount, isTest, outcome: f.outcome, scheduleMs }) };
    });
    const written = await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const endpointIds = [...new Set(decided.map((d) => d.claimed.endpointId))].sort();
      const plans = (await this.endpoints.lockMany(tx, endpointIds)).map((e) =>
        planEndpoint(
          e,
          decided.filter((d) => d.claimed.endpointId === e.id),
          now,
        ),
      );
      closeWhereOff(decided, plans);
      const done = await this.claims.applyTransitions(
        tx,
        decided.map((d) => ({ id: d.claimed.id, createdKey: d.claimed.createdKey, claimToken: d.claimed.claimToken, ...d.decision })),
      );
      await this.endpoints.setHealthMany(
        tx,
        plans.flatMap((p) => (p.health ? [{ id: p.endpoint.id, health: p.health }] : [])),
      );
      for (const plan of plans) await this.applyPlan(tx, plan, done, now);
      return done.size;
    });
    const lost = decided.length - written;
    if (lost > 0) this.logger.warn({ lost }, 'results not recorded: their lease had run out and another worker holds them');
  }

  /**
   * The endpoint's changes and their events, in this transaction (the outbox): a run of failures ended
   * (webhook_endpoint.recovered), deliveries out of attempts (webhook_delivery.exhausted), the endpoint turned off
   * (webhook_endpoint.disabled, recorded once it is off), and the owner's emails.
   */
  private async applyPlan(tx: Tx, plan: EndpointPlan, written: Set<string>, now: Date): Promise<void> {
    const { endpoint, disableFor } = plan;
    // A result another worker now owns is that worker's to report.
    const exhausted = plan.exhausted.filter((d) => written.has(d.claimed.id));
    for (const failingSince of plan.recovered) await this.endpointEvents.recovered(tx, endpoint, failingSince);
    for (const d of exhausted) await this.endpointEvents.exhausted(tx, endpoint, exhaustedFacts(d));
    if (exhausted.length === 0 && !disableFor) return;
    const to = await this.ownerEmail(endpoint.orgId);
    if (!to)
      this.logger.warn(
        { org_id: endpoint.orgId, endpoint_id: endpoint.id },
        'owner email needed for a webhook notice, but the firm has none',
      );
    const emails: MailMessage[] = [];
    if (exhausted.length > 0 && to) emails.push(deliveryFailedNotice(to, endpoint, exhausted.map(failedDelivery)));
    if (disableFor) {
      await this.endpoints.disable(tx, endpoint.id, disableFor, now);
      const closed = await this.deliveries.closePending(tx, endpoint.id, now);
      this.logger.warn(
        { endpoint_id: endpoint.id, org_id: endpoint.orgId, reason: disableFor, closed_pending: closed },
        'webhook endpoint turned off',
      );
      if (to) emails.push(endpointDisabledNotice(to, endpoint, disableFor));
      await this.endpointEvents.disabled(tx, endpoint, disableFor);
    }
    for (const message of emails) await this.mail.enqueue(tx, message);
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

/** A delivery whose endpoint is or turns off is not kept pending: what happens while it is off is never sent later. */
function closeWhereOff(decided: DecidedDelivery[], plans: EndpointPlan[]): void {
  const off = new Set(plans.filter((p) => p.endpoint.status !== 'enabled' || p.disableFor).map((p) => p.endpoint.id));
  for (const d of decided) {
    if (d.decision.status === 'pending' && off.has(d.claimed.endpointId)) {
      d.decision = { ...d.decision, status: 'failed', nextAttemptAt: null, completedAt: d.outcome.at };
    }
  }
}

const failedDelivery = (d: DecidedDelivery) => ({
  deliveryId: d.claimed.id,
  eventId: d.claimed.eventId,
  eventType: d.claimed.eventType,
  lastError: d.decision.attempt?.error ?? `HTTP ${d.decision.attempt?.status_code}`,
});

const exhaustedFacts = (d: DecidedDelivery) => ({
  deliveryId: d.claimed.id,
  eventId: d.claimed.eventId,
  lastStatusCode: d.decision.attempt?.status_code ?? null,
});
