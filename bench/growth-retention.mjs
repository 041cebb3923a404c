/**
 * The tables kept for a limited time, partitioned by day (migrations/1764100000000-time-partitions.ts), for
 * bench/growth.bench.mjs: their day partitions made ahead of seeding, as the scheduled job would have made them over
 * the month, and one whole day removed the way retention removes it (TimePartitions.dropDay, the service's own code).
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const dist = (p) => fileURLToPath(new URL(`../dist/src/${p}`, import.meta.url));
const DAY_MS = 86_400_000;
export const RETAINED_TABLES = ['webhook_deliveries', 'events', 'mail_outbox', 'audit_log'];

function partitions(client) {
  const { TimePartitions, pgTransactions } = require(dist('common/retention/time-partitions.js'));
  return new TimePartitions(pgTransactions(client));
}

/** A partition for every UTC day from `days` days before `now` to today, in each retained table. */
export async function ensureDayPartitions(client, now, days) {
  const { utcDay } = require(dist('common/retention/time-partitions.js'));
  const tp = partitions(client);
  for (const table of RETAINED_TABLES)
    for (let day = utcDay(new Date(now.getTime() - days * DAY_MS)); day <= now; day = new Date(day.getTime() + DAY_MS))
      await tp.ensureDay(table, day);
}

/** The oldest UTC day the seeding filled whole (the oldest one holds only its last hours). */
export function oldestWholeDay(now, days) {
  const { utcDay } = require(dist('common/retention/time-partitions.js'));
  return new Date(utcDay(new Date(now.getTime() - days * DAY_MS)).getTime() + DAY_MS);
}

/** The oldest `count` UTC days the seeding filled whole, oldest first (no more than the whole days there are). */
export function oldestWholeDays(now, days, count) {
  const first = oldestWholeDay(now, days);
  return Array.from({ length: Math.max(1, Math.min(count, days - 1)) }, (_, k) => new Date(first.getTime() + k * DAY_MS));
}

/**
 * Drops `day`'s partition of each retained table; resolves to the seconds and rows of each, and when the drop started
 * and ended (performance.now() ms, to line reads up with it). Rows are counted first, for all four, so no count runs
 * between one drop and the next; `beforeEachDrop` runs before each (the bench lets readers run undisturbed then).
 */
export async function dropOneDay(ctx, day, beforeEachDrop = async () => undefined) {
  const { dayPartitionName } = require(dist('common/retention/time-partitions.js'));
  const tp = partitions(ctx.client);
  const counted = [];
  for (const table of RETAINED_TABLES) {
    const name = dayPartitionName(table, day);
    const [{ rows }] = (await ctx.client.query(`SELECT count(*)::int AS rows FROM ${name}`)).rows;
    counted.push({ table, name, rows });
  }
  const results = [];
  for (const { table, name, rows } of counted) {
    await beforeEachDrop();
    const start = performance.now();
    const { dropped, ms } = await tp.dropDay(table, day);
    const end = performance.now();
    if (!dropped) throw new Error(`${table}: no partition ${name} to drop`);
    results.push({ table, seconds: ms / 1000, rows, how: 'DROP TABLE of its day partition', start, end });
  }
  return results;
}
