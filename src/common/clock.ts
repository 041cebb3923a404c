import { Injectable } from '@nestjs/common';

/**
 * The one source of application time (retry schedules, link expiry, retention,
 * rate windows). Tests replace it with `AdjustableClock` and move time instead
 * of sleeping. List `as_of` deliberately uses the database clock instead.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

export class AdjustableClock extends Clock {
  private offsetMs = 0;
  private frozenAt: number | null = null;
  override now(): Date {
    return new Date((this.frozenAt ?? Date.now()) + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  /**
   * Stops real time from moving the clock (only `advance` does), for tests that
   * assert exact seconds: on a busy machine real seconds pass between requests.
   */
  freeze(): void {
    this.frozenAt ??= Date.now();
  }
  /** Freezes at a given instant: several apps of one test then share exactly the same time. */
  freezeAt(epochMs: number): void {
    this.frozenAt = epochMs;
  }
  reset(): void {
    this.offsetMs = 0;
    this.frozenAt = null;
  }
}
