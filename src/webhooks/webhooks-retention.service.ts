import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { Clock } from '../common/clock.js';
import { deleteInBatches, type RetentionRun } from '../common/retention/delete-in-batches.js';
import { AppConfig } from '../config/app-config.js';
import { EVENT_RETENTION_MS } from '../events/index.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';

/** Deliveries are kept 30 days (by the injected clock), then removed in bounded batches. */
@Injectable()
export class WebhooksRetentionService {
  private readonly logger = new Logger(WebhooksRetentionService.name);
  private running: Promise<RetentionRun> | null = null;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  @Interval('webhook-deliveries-retention', 10 * 60_000)
  async scheduled(): Promise<void> {
    if (!this.config.runsWorker) return;
    try {
      const { deleted } = await this.run();
      if (deleted > 0) this.logger.log({ deleted }, 'removed webhook deliveries older than 30 days');
    } catch (err) {
      this.logger.warn({ err: String(err) }, 'delivery retention run failed; will retry');
    }
  }

  run(batchSize = 1000): Promise<RetentionRun> {
    this.running ??= this.loop(batchSize).finally(() => (this.running = null));
    return this.running;
  }

  private loop(batchSize: number): Promise<RetentionRun> {
    const cutoff = new Date(this.clock.now().getTime() - EVENT_RETENTION_MS);
    return deleteInBatches((n) => this.deliveries.deleteOlderThan(cutoff, n), batchSize);
  }
}
