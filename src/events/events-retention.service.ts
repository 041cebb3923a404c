import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { Clock } from '../common/clock.js';
import { deleteInBatches, type RetentionRun } from '../common/retention/delete-in-batches.js';
import { AppConfig } from '../config/app-config.js';
import { EVENT_RETENTION_MS } from './events.service.js';
import { EventsRepository } from './events.repository.js';

export const RETENTION_INTERVAL_MS = 10 * 60_000;

/**
 * Removes events older than 30 days (by the injected clock) in bounded
 * batches, each its own short statement, until none are left. Runs in the
 * worker roles; the schedule only exists where ScheduleModule is loaded.
 */
@Injectable()
export class EventsRetentionService {
  private readonly logger = new Logger(EventsRetentionService.name);
  private running: Promise<RetentionRun> | null = null;

  constructor(
    private readonly events: EventsRepository,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  @Interval('events-retention', RETENTION_INTERVAL_MS)
  async scheduled(): Promise<void> {
    if (!this.config.runsWorker) return;
    try {
      const { deleted } = await this.run();
      if (deleted > 0) this.logger.log({ deleted }, 'removed events older than 30 days');
    } catch (err) {
      this.logger.warn({ err: String(err) }, 'events retention run failed; will retry');
    }
  }

  /** Deletes everything past retention; says how many rows went in how many statements. Concurrent calls share one run. */
  run(batchSize = 1000): Promise<RetentionRun> {
    this.running ??= this.loop(batchSize).finally(() => (this.running = null));
    return this.running;
  }

  private loop(batchSize: number): Promise<RetentionRun> {
    const cutoff = new Date(this.clock.now().getTime() - EVENT_RETENTION_MS);
    return deleteInBatches((n) => this.events.deleteOlderThan(cutoff, n), batchSize);
  }
}
