import { Injectable } from '@nestjs/common';
import { isDatabaseUnavailable } from '../common/errors/db-errors.js';
import { OpsSignals } from '../common/ops/ops-signals.js';
import { AuditRepository, type ReadAuditRow } from './audit.repository.js';

interface Waiting {
  row: ReadAuditRow;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Rows per INSERT at most (a page of 100 ids is about 2 kB of JSON a row). */
const MAX_BATCH = 200;

/**
 * Group commit for the audit rows of reads. Every read still waits until its
 * row is in before it answers; while one INSERT is on its way, the rows of
 * reads finishing meanwhile queue up and go together in the next one. Idle,
 * a row goes alone at once; under load one statement carries many rows, which
 * saves PostgreSQL a statement and a commit per read (docs/benchmarks.md).
 */
@Injectable()
export class ReadAuditWriter {
  private queue: Waiting[] = [];
  private flushing = false;

  constructor(
    private readonly audit: AuditRepository,
    private readonly signals: OpsSignals,
  ) {}

  write(row: ReadAuditRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) await this.insert(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.flushing = false;
    }
  }

  private async insert(batch: Waiting[]): Promise<void> {
    try {
      await this.audit.insertReadRows(batch.map((w) => w.row));
      for (const w of batch) w.resolve();
    } catch (err) {
      if (batch.length === 1 || isDatabaseUnavailable(err)) {
        this.signals.writeFailed('audit', batch.length);
        for (const w of batch) w.reject(err);
        return;
      }
      // One bad row (its firm deleted meanwhile) must not fail the reads of others: each on its own.
      for (const w of batch) await this.insert([w]);
    }
  }
}
