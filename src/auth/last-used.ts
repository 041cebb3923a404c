import { Logger } from '@nestjs/common';
import { runInBackground } from '../common/background.js';

const TOUCH_EVERY_MS = 60_000;
/** Uses noted meanwhile go to the database together, this long after the first. */
const FLUSH_AFTER_MS = 1_000;

/**
 * `last_used_at`, off the request path: a use is noted in memory (at most once
 * a minute per key and process, application time) and written with the other
 * keys' uses in one UPDATE a second later, which no request waits for. A
 * failed write is counted and logged (unless the database is unreachable: the
 * outage is logged once, by its own watcher); the next use writes again.
 */
export class LastUsedRecorder {
  private readonly logger = new Logger(LastUsedRecorder.name);
  private readonly lastNoted = new Map<string, number>();
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly write: (uses: Map<string, Date>) => Promise<void>,
    /** Counts a failed write (guarded_write_failures_total{write="last_used"}). */
    private readonly failed: (count: number) => void,
    /** True when the failure is the database being unreachable, which DatabaseOutage reports (once per outage). */
    private readonly outage: (err: unknown) => boolean,
  ) {}

  note(keyId: string, now: Date): void {
    const last = this.lastNoted.get(keyId);
    if (last !== undefined && now.getTime() - last < TOUCH_EVERY_MS) return;
    if (this.lastNoted.size >= 10_000) this.lastNoted.clear();
    this.lastNoted.set(keyId, now.getTime());
    this.pending.set(keyId, now);
    // Outside the request that noted the use, so the write carries none of its context (trace, log).
    this.timer ??= runInBackground(() => setTimeout(() => void this.flush(), FLUSH_AFTER_MS).unref());
  }

  /** Writes what is pending now (also on shutdown). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const uses = this.pending;
    this.pending = new Map();
    try {
      await this.write(uses);
    } catch (err) {
      this.failed(uses.size);
      for (const id of uses.keys()) this.lastNoted.delete(id);
      if (!this.outage(err)) this.logger.warn({ err: String(err) }, 'could not record last_used_at');
    }
  }
}
