import type { HourlyDeliveries } from '../webhooks/index.js';

/** One hour of the chart: deliveries made that hour, by status. */
export interface ChartHour {
  hour: string;
  succeeded: number;
  failed: number;
  pending: number;
}

const HOUR_MS = 3600_000;

/** Every hour of the last `hours` (the current one last), with its counts or zeros. */
export function chartHours(rows: HourlyDeliveries[], hours: number, now: Date): ChartHour[] {
  const current = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  const byHour = new Map<string, ChartHour>();
  for (let i = hours - 1; i >= 0; i--) {
    const hour = new Date(current - i * HOUR_MS).toISOString();
    byHour.set(hour, { hour, succeeded: 0, failed: 0, pending: 0 });
  }
  for (const r of rows) {
    const slot = byHour.get(new Date(r.hour).toISOString());
    if (slot && (r.status === 'succeeded' || r.status === 'failed' || r.status === 'pending')) slot[r.status] += r.deliveries;
  }
  return [...byHour.values()];
}
