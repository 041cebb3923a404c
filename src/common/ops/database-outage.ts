import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Counter, Gauge, type Metric } from 'prom-client';
import { Database } from '../../database/sql.js';
import { runInBackground } from '../background.js';
import { isDatabaseUnavailable } from '../errors/db-errors.js';

/** While the database is unreachable, one `SELECT 1` this often checks whether it is back. */
export const OUTAGE_PROBE_MS = 1000;

interface Outage {
  /** performance.now() when it was first noticed. */
  since: number;
  /** Requests answered 503 because of it, so far. */
  answered503: number;
}

/** What of the error that started an outage is logged: its class, code and message (never a statement's parameters). */
function summary(err: unknown): Record<string, unknown> {
  const e = err as { name?: unknown; code?: unknown; message?: unknown; driverError?: { code?: unknown } } | null;
  return { type: e?.name, code: e?.driverError?.code ?? e?.code, message: typeof e?.message === 'string' ? e.message : String(err) };
}

/**
 * The database's reachability as this process meets it, logged once per
 * outage: one warning when a request (or a background loop) first finds it
 * unreachable, then, while it stays so, a `SELECT 1` each second (outside any
 * request) until one succeeds, and one line saying it is back, how long it was
 * away and how many requests were answered 503 meanwhile. Nothing is logged
 * per request; the counts are metrics (db_outages_total,
 * db_unavailable_answers_total, db_unreachable).
 */
@Injectable()
export class DatabaseOutage implements OnModuleDestroy {
  private readonly logger = new Logger('Database');
  private current: Outage | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly outages = new Counter({
    name: 'db_outages_total',
    help: 'Outages of the database this process noticed: one per outage, from the first failure until a probe reaches it again.',
    registers: [],
  });
  private readonly answered = new Counter({
    name: 'db_unavailable_answers_total',
    help: 'Requests this process answered 503 because the database could not be reached or a statement timed out.',
    registers: [],
  });
  private readonly unreachable = new Gauge({
    name: 'db_unreachable',
    help: '1 while this process finds the database unreachable (from the first failure until a probe succeeds), else 0.',
    registers: [],
  });

  constructor(private readonly db: Database) {}

  get metrics(): Metric[] {
    return [this.outages, this.answered, this.unreachable];
  }

  /** True while an outage is under way (noticed, not yet probed back). */
  get ongoing(): boolean {
    return this.current !== null;
  }

  /** A request is answered 503 because of `err` (the database is unreachable): counted; the first of an outage is logged. */
  answeredUnavailable(err: unknown): void {
    this.answered.inc();
    this.notice(err, 'a request').answered503++;
  }

  /**
   * A background loop's failure (a claim, a mail run): when it means the database is unreachable, it is this
   * outage's business (logged once here) and true is returned, so the loop says nothing itself; otherwise false.
   */
  backgroundFailed(err: unknown, noticedBy: string): boolean {
    if (!isDatabaseUnavailable(err)) return false;
    this.notice(err, noticedBy);
    return true;
  }

  onModuleDestroy(): void {
    this.stopped = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }

  private notice(err: unknown, noticedBy: string): Outage {
    if (this.current) return this.current;
    this.current = { since: performance.now(), answered503: 0 };
    this.outages.inc();
    this.unreachable.set(1);
    this.logger.warn(
      { error: summary(err), noticed_by: noticedBy, probe_every_ms: OUTAGE_PROBE_MS },
      'database unreachable: answering 503 until it is back (logged once per outage)',
    );
    this.scheduleProbe();
    return this.current;
  }

  /** The probe outlives the request that noticed the outage: it runs in the process's own context. */
  private scheduleProbe(): void {
    if (this.stopped) return;
    this.probeTimer = runInBackground(() => setTimeout(() => void this.probe(), OUTAGE_PROBE_MS).unref());
  }

  private async probe(): Promise<void> {
    this.probeTimer = null;
    try {
      await this.db.execute('SELECT 1');
    } catch {
      this.scheduleProbe();
      return;
    }
    const outage = this.current;
    if (!outage || this.stopped) return;
    this.current = null;
    this.unreachable.set(0);
    this.logger.log(
      { outage_ms: Math.round(performance.now() - outage.since), answered_503: outage.answered503 },
      'database reachable again',
    );
  }
}
