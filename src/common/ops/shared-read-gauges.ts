import { Gauge } from 'prom-client';

/** One gauge whose value is taken from the shared read. */
export interface SharedReadGauge<T> {
  name: string;
  help: string;
  value(read: T): number;
}

/**
 * Gauges that are facts of the database, read at scrape time by one query
 * they all share: prom-client collects a registry's gauges concurrently, so
 * they join the read in flight. Every process reports the same true value
 * whatever its role. A failed read is reported to `onError` and the scrape
 * still answers, each gauge keeping its last value.
 */
export function sharedReadGauges<T>(read: () => Promise<T>, onError: (err: unknown) => void, gauges: SharedReadGauge<T>[]): Gauge[] {
  let reading: Promise<T | null> | null = null;
  const readOnce = (): Promise<T | null> =>
    (reading ??= read()
      .catch((err: unknown) => {
        onError(err);
        return null;
      })
      .finally(() => (reading = null)));
  return gauges.map(
    ({ name, help, value }) =>
      new Gauge({
        name,
        help,
        registers: [],
        async collect() {
          const stats = await readOnce();
          if (stats) this.set(value(stats));
        },
      }),
  );
}
