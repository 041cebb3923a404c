import { Injectable, Logger } from '@nestjs/common';
import type { Gauge, Metric } from 'prom-client';
import { Clock } from '../common/clock.js';
import { sharedReadGauges } from '../common/ops/shared-read-gauges.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';

/**
 * Enabled endpoints whose deliveries keep failing (failing_since set), read
 * from the database at scrape time like the due-delivery gauges. An endpoint
 * failing for hours is a firm's receiver down; the 3-day rule will turn it
 * off, and the operator should hear of it well before.
 */
@Injectable()
export class EndpointHealthMetrics {
  private readonly logger = new Logger('EndpointHealthMetrics');
  private readonly gauges: Gauge[];

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly clock: Clock,
  ) {
    this.gauges = sharedReadGauges(
      () => this.endpoints.failingStats(this.clock.now()),
      (err) => this.logger.warn({ err }, 'could not read failing webhook endpoints for metrics'),
      [
        {
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
    return this.gauges;
  }
}
