import { Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram, type Metric } from 'prom-client';
import { Clock } from '../common/clock.js';
import { sharedReadGauges } from '../common/ops/shared-read-gauges.js';
import { isSuccess, type AttemptResult } from './delivery-rules.js';
import type { ClaimedDelivery } from './delivery-claims.repository.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';

/** success: a 2xx answer; http_error: any other answer; no_response: timeout, refused or reset connection, disallowed address. */
export const ATTEMPT_OUTCOMES = ['success', 'http_error', 'no_response'] as const;

const attemptOutcome = (r: AttemptResult) => (r.statusCode === null ? 'no_response' : isSuccess(r.statusCode) ? 'success' : 'http_error');

/**
 * The webhook delivery series. Attempts and the delay to a first attempt are
 * facts of the process that sends (counted where DeliveryAttempt runs, so each
 * worker process reports its own); deliveries due, the oldest one's age and the
 * endpoints in a run of failures are facts of the database, read by one query at scrape time, so every process
 * reports the same true value whatever the roles are. The metrics module
 * registers these in its registry.
 */
@Injectable()
export class WebhookMetrics {
  private readonly logger = new Logger('WebhookMetrics');
  private readonly attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts sent by this process, by outcome (success, http_error, no_response).',
    labelNames: ['outcome'],
    registers: [],
  });
  private readonly firstAttemptDelay = new Histogram({
    name: 'webhook_first_attempt_delay_seconds',
    help: 'Time from the commit of an event to the first attempt of each of its deliveries (redeliveries excluded).',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
    registers: [],
  });
  private readonly databaseGauges: Gauge[];

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly clock: Clock,
  ) {
    for (const outcome of ATTEMPT_OUTCOMES) this.attempts.inc({ outcome }, 0);
    this.databaseGauges = sharedReadGauges(
      () => this.readDatabase(),
      (err) => this.logger.warn({ err }, 'could not read webhook deliveries and endpoints for metrics'),
      [
        {
          name: 'webhook_deliveries_due',
          help: 'Pending webhook deliveries whose next attempt time has come (in the database; the same in every process).',
          value: (stats) => stats.due,
        },
        {
          name: 'webhook_oldest_due_delivery_age_seconds',
          help: 'How long the longest-waiting due webhook delivery has been due; 0 when none is due.',
          value: (stats) => stats.oldestDueSeconds,
        },
        {
          // A firm's receiver down for hours: the 3-day rule will turn it off, and the operator should hear of it before.
          name: 'webhook_endpoints_failing',
          help: 'Enabled webhook endpoints in a run of failed deliveries (failing_since set); the same in every process.',
          value: (stats) => stats.failing,
        },
        {
          name: 'webhook_oldest_failing_endpoint_seconds',
          help: 'How long the longest run of failed deliveries of an enabled endpoint has lasted; 0 when none is failing.',
          value: (stats) => stats.oldestFailingSeconds,
        },
      ],
    );
  }

  get metrics(): Metric[] {
    return [this.attempts, this.firstAttemptDelay, ...this.databaseGauges];
  }

  /** One attempt was sent (or could not be signed) for this claimed delivery. */
  attempted(c: ClaimedDelivery, at: Date, result: AttemptResult): void {
    this.attempts.inc({ outcome: attemptOutcome(result) });
    if (c.attemptCount === 0 && c.trigger !== 'redelivery') {
      this.firstAttemptDelay.observe(Math.max(0, at.getTime() - new Date(c.createdAt).getTime()) / 1000);
    }
  }

  /** Both facts of the database at the same instant, one statement each, run side by side. */
  private async readDatabase() {
    const now = this.clock.now();
    const [due, failing] = await Promise.all([this.deliveries.dueStats(now), this.endpoints.failingStats(now)]);
    return { ...due, ...failing };
  }
}
