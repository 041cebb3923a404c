import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { AppConfig } from '../../config/app-config.js';
import type { SqlCondition } from '../../database/sql-params.js';
import { Clock } from '../clock.js';
import { OpsSignals } from '../ops/ops-signals.js';
import { deleteInBatches } from './delete-in-batches.js';
import { DAY_MS, TimePartitions, utcDay } from './time-partitions.js';

export const RETENTION_INTERVAL_MS = 10 * 60_000;
export const RETENTION_BATCH = 1000;
/** Days of partitions kept ready ahead of the clock (today included), so inserts land in a day's partition, not DEFAULT. */
export const PARTITION_DAYS_AHEAD = 7;

/** One table partitioned by day on its creation time (migrations/1764100000000-time-partitions.ts). */
export interface RetentionEntry {
  /** The partitioned table; also names the entry in logs and in `run(name)`. */
  table: string;
  /** How long rows are kept (by the app clock); null: for ever (partitions are still made ahead). */
  maxAgeMs: number | null;
  /**
   * The condition of rows that must stay even past retention (mail still pending), written by the table's context: a
   * partition holding any is kept and only its other rows are deleted, until a later run finds none and drops it.
   */
  keepWhere?: SqlCondition;
}

/**
 * Rows of a table that is not partitioned, removed by age in bounded batches by the context that owns them (test-mode
 * calls, whose transcripts, leads, recordings and links go with them by their foreign keys).
 */
export interface RowRetention {
  /** Names the entry in logs and in `run(name)`. */
  name: string;
  /** How long rows are kept (by the app clock). */
  maxAgeMs: number;
  /** Rows per DELETE (default RETENTION_BATCH): smaller where each row takes others with it. */
  batchSize?: number;
  /** Deletes at most `limit` rows made before `cutoff`; how many it deleted. */
  deleteBatch: (cutoff: Date, limit: number) => Promise<number>;
}

export interface RetentionRun {
  /** Partitions made ahead in this run. */
  created: string[];
  /** Partitions dropped whole: every row in them is past retention. */
  dropped: string[];
  /** Rows deleted one by one: strays in the DEFAULT partition, and the finished rows of a kept partition. */
  deleted: number;
}

/**
 * The one scheduled retention job. Each context registers its growing table when its module starts; every ten
 * minutes (worker roles only) each table gets its partitions for the next days and loses the partitions whose
 * whole day is past retention. A row is therefore removed between its retention age and one day after it (the
 * API already hides rows past retention). Rows of tables that are not partitioned (test-mode calls) are registered
 * with their own batched delete and removed by the same runs, within ten minutes of their age. A failed entry is
 * logged with its cause and retried at the next run; the others still run.
 */
@Injectable()
export class RetentionRunner {
  private readonly logger = new Logger(RetentionRunner.name);
  private readonly entries = new Map<string, RetentionEntry>();
  private readonly rowEntries = new Map<string, RowRetention>();
  private readonly running = new Map<string, Promise<RetentionRun>>();

  constructor(
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly signals: OpsSignals,
    private readonly partitions: TimePartitions,
  ) {}

  register(entry: RetentionEntry): void {
    this.entries.set(entry.table, entry);
  }

  /** Rows removed by age from a table that is not partitioned: run with the partitioned tables, every ten minutes. */
  registerRows(entry: RowRetention): void {
    this.rowEntries.set(entry.name, entry);
  }

  @Interval('retention', RETENTION_INTERVAL_MS)
  async scheduled(): Promise<void> {
    if (!this.config.runsWorker) return;
    let failed = false;
    for (const table of [...this.entries.keys(), ...this.rowEntries.keys()]) {
      try {
        const { created, dropped, deleted } = await this.run(table);
        if (created.length + dropped.length + deleted > 0) this.logger.log({ table, created, dropped, deleted }, 'kept retention');
      } catch (err) {
        failed = true;
        this.logger.warn({ table, err }, 'retention run failed; will retry at the next run');
      }
    }
    // Only a run in which every table kept its retention counts; the alert watches for its absence.
    if (!failed) this.signals.jobSucceeded('retention');
  }

  /** Runs one entry now (a table's, or rows' by name); concurrent calls for the same entry share one run. */
  run(name: string, batchSize = RETENTION_BATCH): Promise<RetentionRun> {
    const entry = this.entries.get(name);
    const rows = this.rowEntries.get(name);
    if (!entry && !rows) throw new Error(`no retention entry named "${name}"`);
    let run = this.running.get(name);
    if (!run) {
      const now = this.clock.now();
      run = (entry ? this.keep(entry, now, batchSize) : this.keepRows(rows!, now)).finally(() => this.running.delete(name));
      this.running.set(name, run);
    }
    return run;
  }

  private async keepRows(entry: RowRetention, now: Date): Promise<RetentionRun> {
    const cutoff = new Date(now.getTime() - entry.maxAgeMs);
    const { deleted } = await deleteInBatches((n) => entry.deleteBatch(cutoff, n), entry.batchSize ?? RETENTION_BATCH);
    return { created: [], dropped: [], deleted };
  }

  private async keep(entry: RetentionEntry, now: Date, batchSize: number): Promise<RetentionRun> {
    const { table, maxAgeMs, keepWhere } = entry;
    const run: RetentionRun = { created: [], dropped: [], deleted: 0 };
    for (let d = 0; d <= PARTITION_DAYS_AHEAD; d++) {
      const day = utcDay(new Date(now.getTime() + d * DAY_MS));
      if (await this.partitions.ensureDay(table, day)) run.created.push(`${table}@${day.toISOString().slice(0, 10)}`);
    }
    if (maxAgeMs === null) return run;
    const cutoff = new Date(now.getTime() - maxAgeMs);
    const finished: SqlCondition = keepWhere ? (params) => `NOT (${keepWhere(params)})` : () => 'true';
    for (const p of await this.partitions.list(table)) {
      if (p.upper === null || p.upper > cutoff) continue;
      if (keepWhere && (await this.partitions.holds(p.name, keepWhere))) {
        run.deleted += (await deleteInBatches((n) => this.partitions.deleteBatch(p.name, finished, n), batchSize)).deleted;
        continue;
      }
      await this.partitions.drop(table, p.name);
      run.dropped.push(p.name);
    }
    const key = await this.partitions.keyOf(table);
    const stray: SqlCondition = (params) => `${key} < ${params.add(cutoff)} AND ${finished(params)}`;
    const strays = (n: number) => this.partitions.deleteBatch(`${table}_default`, stray, n);
    run.deleted += (await deleteInBatches(strays, batchSize)).deleted;
    return run;
  }
}
