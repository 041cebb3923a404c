import { Inject, Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { Clock } from '../common/clock.js';
import { OpsSignals } from '../common/ops/ops-signals.js';
import { AppConfig } from '../config/app-config.js';
import { RecordingsRepository } from './recordings.repository.js';
import { RECORDING_STORE, type ListedObject, type RecordingStore } from './store/recording-store.js';

export const RECORDING_SWEEP_INTERVAL_MS = 15 * 60_000;
/** Keys checked against the database per query while the listing streams past. */
const SWEEP_BATCH = 500;

export interface SweepRun {
  /** Objects looked at (every object in the store). */
  listed: number;
  deleted: number;
}

/**
 * Deletes stored objects no recording row points to: an upload whose
 * transaction never committed (a crash between the write and the commit),
 * a replaced or removed recording whose post-commit removal failed, a
 * filesystem tmp/ part a crash left behind. Only objects older than
 * RECORDING_SWEEP_GRACE go, so an upload still on its way to its commit is
 * never touched; the grace must outlast the slowest upload. Runs every 15
 * minutes on worker roles; several workers sweeping at once only repeat
 * idempotent deletes.
 */
@Injectable()
export class RecordingSweeper {
  private readonly logger = new Logger(RecordingSweeper.name);
  private running: Promise<SweepRun> | null = null;

  constructor(
    @Inject(RECORDING_STORE) private readonly objects: RecordingStore,
    private readonly recordings: RecordingsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly signals: OpsSignals,
  ) {}

  @Interval('recording-sweep', RECORDING_SWEEP_INTERVAL_MS)
  async scheduled(): Promise<void> {
    if (!this.config.runsWorker) return;
    try {
      const { listed, deleted } = await this.sweep();
      if (deleted > 0) this.logger.log({ listed, deleted }, 'removed stored recordings no row points to');
      this.signals.jobSucceeded('recording_sweep');
    } catch (err) {
      this.logger.warn({ err: String(err) }, 'recording sweep failed; will retry at the next run');
    }
  }

  /** One pass over the store now; concurrent calls share one pass. */
  sweep(): Promise<SweepRun> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<SweepRun> {
    const cutoff = this.clock.now().getTime() - this.config.recordingSweepGraceMs;
    const run: SweepRun = { listed: 0, deleted: 0 };
    let batch: ListedObject[] = [];
    for await (const object of this.objects.list()) {
      run.listed++;
      if (object.lastModified.getTime() <= cutoff) batch.push(object);
      if (batch.length >= SWEEP_BATCH) {
        run.deleted += await this.deleteUnreferenced(batch);
        batch = [];
      }
    }
    run.deleted += await this.deleteUnreferenced(batch);
    return run;
  }

  private async deleteUnreferenced(batch: ListedObject[]): Promise<number> {
    const kept = await this.recordings.referencedKeys(batch.map((o) => o.key));
    let deleted = 0;
    for (const { key } of batch) {
      if (kept.has(key)) continue;
      try {
        await this.objects.remove(key);
        deleted++;
      } catch (err) {
        this.logger.warn({ err: String(err), storage_key: key }, 'could not sweep a stored recording object');
      }
    }
    return deleted;
  }
}
