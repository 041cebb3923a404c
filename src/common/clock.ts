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
  override now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  reset(): void {
    this.offsetMs = 0;
  }
}
