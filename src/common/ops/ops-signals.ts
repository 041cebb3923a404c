import { Injectable } from '@nestjs/common';
import { Counter, Gauge, type Metric } from 'prom-client';
import { Clock } from '../clock.js';

/** The scheduled jobs whose silence an operator must hear about (deploy/prometheus/alerts.yml). */
export type ScheduledJob = 'retention' | 'recording_sweep';

/** Writes whose failure loses a record the spec promises: the audit log and the event outbox. */
export type GuardedWrite = 'audit' | 'outbox' | 'last_used';

/**
 * Signals no request carries, for the alert rules: when each scheduled job
 * last finished cleanly, and how many audit or outbox writes failed. Any
 * context may report here (it is kernel); the metrics module registers the
 * series in its registry, as it does the webhook ones.
 */
@Injectable()
export class OpsSignals {
  private readonly lastSuccess = new Gauge({
    name: 'scheduled_job_last_success_timestamp_seconds',
    help: 'When each scheduled job (retention, recording_sweep) last finished without error, in seconds since 1970; this process only.',
    labelNames: ['task'],
    registers: [],
  });
  private readonly writeFailures = new Counter({
    name: 'guarded_write_failures_total',
    help: "Failed writes of the audit log (audit), of the event outbox (outbox) and of API keys' last_used_at (last_used) in this process.",
    labelNames: ['write'],
    registers: [],
  });

  constructor(private readonly clock: Clock) {
    // Present at zero from the start, so a rate over them is defined before the first failure.
    for (const write of ['audit', 'outbox', 'last_used'] satisfies GuardedWrite[]) this.writeFailures.inc({ write }, 0);
  }

  get metrics(): Metric[] {
    return [this.lastSuccess, this.writeFailures];
  }

  /** Labelled `task`, not `job`: Prometheus owns the `job` label of every target it scrapes. */
  jobSucceeded(task: ScheduledJob): void {
    this.lastSuccess.set({ task }, this.clock.now().getTime() / 1000);
  }

  writeFailed(write: GuardedWrite, count = 1): void {
    this.writeFailures.inc({ write }, count);
  }

  /** Runs `write`, counting its failure before passing it on. */
  async guard<T>(write: GuardedWrite, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      this.writeFailed(write);
      throw err;
    }
  }
}
