import type { DemoRandom } from './demo-random.js';

export const DAY_MS = 86_400_000;
/** The demo history covers the last 60 days. */
export const WINDOW_DAYS = 60;

/**
 * The first UTC midnight inside the window (now - 60 days, now]. Day slots
 * start there, so a call's hour in UTC maps to the same office hours in
 * Chicago on every day, and no slot of the first day is older than 60 days
 * whatever the time of day.
 */
export function windowStart(now: Date): number {
  return Math.ceil((now.getTime() - WINDOW_DAYS * DAY_MS) / DAY_MS) * DAY_MS;
}

export interface CallSlot {
  startedMs: number;
  /** Outside office hours, or a weekend: the receptionist takes a message, no transfer. */
  afterHours: boolean;
}

/**
 * When call `index` of `count` happened. Calls spread evenly over the 59
 * whole days after `start`; the last slot (day 58, at most 22:59:59 UTC) ends
 * before now, because `start` is less than a day after now - 60 days. Office
 * hours are 14:00-22:59 UTC (8 or 9 am to 5 or 6 pm in Chicago, either side
 * of DST); after-hours calls come in 01:00-11:59 UTC.
 */
export function callSlot(start: number, index: number, count: number, rnd: DemoRandom): CallSlot {
  const day = Math.floor((index * (WINDOW_DAYS - 1)) / count);
  const weekend = [0, 6].includes(new Date(start + day * DAY_MS).getUTCDay());
  const afterHours = rnd.chance(0.18) || weekend;
  const hourUtc = afterHours ? 1 + rnd.int(11) : 14 + rnd.int(9);
  const startedMs = start + day * DAY_MS + hourUtc * 3_600_000 + rnd.int(60) * 60_000 + rnd.int(60) * 1000;
  return { startedMs, afterHours };
}
