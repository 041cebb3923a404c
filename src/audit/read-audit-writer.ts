import { Injectable } from '@nestjs/common';
import { isDatabaseUnavailable } from '../common/errors/db-errors.js';
import { PoolSql } from '../database/pool-sql.js';

/** One audit row of a read made with an API key. */
export interface ReadAuditRow {
  org_id: string;
  key_id: string;
  action: string;
  resource_type: string;
  resource_ids: string[];
  details: Record<string, unknown> | null;
}

interface Waiting {
  row: ReadAuditRow;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Rows per INSERT at most (a page of 100 ids is about 2 kB of JSON a row). */
const MAX_BATCH = 200;

/**
 * Each statement's own implicit transaction commits without waiting for the
 * WAL flush (set_config local to that statement), so a GET does not wait on
 * the disk: lost only if PostgreSQL itself crashes within its WAL writer
 * delay. Rows go in array order.
 */
const INSERT_ROWS = `
  WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
  INSERT INTO audit_log (org_id, actor_type, actor_id, action, resource_type, resource_ids, details)
  SELECT r.org_id, 'api_key', r.key_id, r.action, r.resource_type, r.resource_ids, r.details
    FROM relaxed, jsonb_to_recordset($1::jsonb) AS r(org_id uuid, key_id text, action text, resource_type text, resource_ids text[], details jsonb)`;

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

  constructor(private readonly sql: PoolSql) {}

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
      await this.sql.prepared('audit_read_rows', INSERT_ROWS, [JSON.stringify(batch.map((w) => w.row))]);
      for (const w of batch) w.resolve();
    } catch (err) {
      if (batch.length === 1 || isDatabaseUnavailable(err)) {
        for (const w of batch) w.reject(err);
        return;
      }
      // One bad row (its firm deleted meanwhile) must not fail the reads of others: each on its own.
      for (const w of batch) await this.insert([w]);
    }
  }
}
