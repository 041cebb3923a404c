import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { AppConfig } from '../../config/app-config.js';
import { Clock } from '../clock.js';
import { OpsSignals } from '../ops/ops-signals.js';
import { deleteInBatches, type RetentionRun } from './delete-in-batches.js';

export const RETENTION_INTERVAL_MS = 10 * 60_000;
export const RETENTION_BATCH = 1000;

/** One table's retention: rows older than `maxAgeMs` (by the app clock) go, `batchSize` per statement. */
export interface RetentionEntry {
  /** Names the table in logs and in `run(name)`. */
  name: string;
  maxAgeMs: number;
  /** Deletes at most `batchSize` rows older than `cutoff`; resolves to how many went. */
  deleteBatch(cutoff: Date, batchSize: number): Promise<number>;
}

/**
 * The one scheduled retention job. Each context that keeps rows for a
 * limited time registers an entry when its module starts; every ten minutes
 * (worker roles only) each entry deletes in bounded batches until a batch
 * comes back short. A failed entry is logged with its cause and retried at
 * the next run; the others still run.
 */
@Injectable()
export class RetentionRunner {
  private readonly logger = new Logger(RetentionRunner.name);
  private readonly entries = new Map<string, RetentionEntry>();
  private readonly running = new Map<string, Promise<RetentionRun>>();

  constructor(
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly signals: OpsSignals,
  ) {}

  register(entry: RetentionEntry): void {
    this.entries.set(entry.name, entry);
  }

  @Interval('retention', RETENTION_INTERVAL_MS)
  async scheduled(): Promise<void> {
    if (!this.config.runsWorker) return;
    let failed = false;
    for (const name of this.entries.keys()) {
      try {
        const { deleted } = await this.run(name);
        if (deleted > 0) this.logger.log({ table: name, deleted }, 'removed rows past retention');
      } catch (err) {
        failed = true;
        this.logger.warn({ table: name, err }, 'retention run failed; will retry at the next run');
      }
    }
    // Only a run in which every table kept its retention counts; the alert watches for its absence.
    if (!failed) this.signals.jobSucceeded('retention');
  }

  /** Runs one entry now; concurrent calls for the same entry share one run. */
  run(name: string, batchSize = RETENTION_BATCH): Promise<RetentionRun> {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`no retention entry named "${name}"`);
    let run = this.running.get(name);
    if (!run) {
      const cutoff = new Date(this.clock.now().getTime() - entry.maxAgeMs);
      run = deleteInBatches((n) => entry.deleteBatch(cutoff, n), batchSize).finally(() => this.running.delete(name));
      this.running.set(name, run);
    }
    return run;
  }
}
