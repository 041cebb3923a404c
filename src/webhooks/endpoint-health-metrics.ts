import { Injectable, Logger } from '@nestjs/common';
import { Gauge, type Metric } from 'prom-client';
import { Clock } from '../common/clock.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';

/**
 * Enabled endpoints whose deliveries keep failing (failing_since set), read
 * from the database at scrape time like the due-delivery gauges: every
 * process reports the same value. An endpoint failing for hours is a firm's
 * receiver down; the 3-day rule will turn it off, and the operator should
 * hear of it well before.
 */
@Injectable()
export class EndpointHealthMetrics {
  private readonly logger = new Logger('EndpointHealthMetrics');
  private readonly failing: Gauge;
  private readonly oldestFailing: Gauge;
  /** One query per scrape, shared by both gauges. */
  private reading: Promise<{ failing: number; oldestFailingSeconds: number } | null> | null = null;

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly clock: Clock,
  ) {
    const read = () => this.read();
    this.failing = new Gauge({
      name: 'webhook_endpoints_failing',
      help: 'Enabled webhook endpoints in a run of failed deliveries (failing_since set); the same in every process.',
      registers: [],
      async collect() {
        const stats = await read();
        if (stats) this.set(stats.failing);
      },
    });
    this.oldestFailing = new Gauge({
      name: 'webhook_oldest_failing_endpoint_seconds',
      help: 'How long the longest run of failed deliveries of an enabled endpoint has lasted; 0 when none is failing.',
      registers: [],
      async collect() {
        const stats = await read();
        if (stats) this.set(stats.oldestFailingSeconds);
      },
    });
  }

  get metrics(): Metric[] {
    return [this.failing, this.oldestFailing];
  }

  private read(): Promise<{ failing: number; oldestFailingSeconds: number } | null> {
    this.reading ??= this.endpoints
      .failingStats(this.clock.now())
      .catch((err: unknown) => {
        // A scrape still answers; the gauges keep their last value.
        this.logger.warn({ err }, 'could not read failing webhook endpoints for metrics');
        return null;
      })
      .finally(() => (this.reading = null));
    return this.reading;
  }
}
