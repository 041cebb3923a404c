/**
 * The chaos run's knobs, all from the environment, each with the default of the
 * full run (10 minutes). Durations are seconds, or a number with s or m.
 */
const seconds = (name, fallback) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const m = /^(\d+(?:\.\d+)?)(s|m)?$/.exec(raw.trim());
  if (!m) throw new Error(`${name} must be a number of seconds, or like 90s or 10m, not "${raw}"`);
  return Number(m[1]) * (m[2] === 'm' ? 60 : 1);
};
const int = (name, fallback) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new Error(`${name} must be a whole number, not "${raw}"`);
  return Number(raw);
};

export function chaosSettings() {
  const s = {
    /** How long traffic and faults run (CHAOS_DURATION, default 10m); with CHAOS_UNTIL, the most they may run. */
    durationS: seconds('CHAOS_DURATION', 600),
    /**
     * CHAOS_UNTIL: stop as soon as each named count is reached, e.g. "api_kills=2,worker_kills=2,outages=2,disables=3,requests=1500"
     * (bench/chaos/run-length.mjs); unset, the run lasts CHAOS_DURATION.
     */
    until: process.env.CHAOS_UNTIL ?? '',
    /** A random service process is SIGKILLed every KILL_MIN..KILL_MAX seconds (and a new one of its role started). */
    killMinS: seconds('CHAOS_KILL_MIN', 10),
    killMaxS: seconds('CHAOS_KILL_MAX', 20),
    /** PostgreSQL is stopped every PG_EVERY seconds and started again after PG_DOWN seconds. */
    pgEveryS: seconds('CHAOS_PG_EVERY', 120),
    pgDownS: seconds('CHAOS_PG_DOWN', 5),
    /** A webhook endpoint is disabled through the CLI every TOGGLE_EVERY seconds, and enabled again a few seconds later. */
    toggleEveryS: seconds('CHAOS_TOGGLE_EVERY', 20),
    /** Requests in flight at once, and firms (each with two keys and two endpoints). */
    concurrency: int('CHAOS_CONCURRENCY', 12),
    firms: int('CHAOS_FIRMS', 3),
    /** After the run: how long the drain may take before undelivered events count as lost. */
    drainS: seconds('CHAOS_DRAIN', 120),
    /**
     * CHAOS_REPLACE_RECORDINGS=1: uploads also replace existing recordings. Off by default: with the S3 store a
     * playback racing a replacement answers 500 (the old object is removed between its HEAD and its GET), a known
     * defect reported with this run as its reproduction.
     */
    replaceRecordings: process.env.CHAOS_REPLACE_RECORDINGS === '1',
    /** Where the JSON result goes (default bench/results/chaos-<time>.json); "-" for none. */
    resultFile: process.env.CHAOS_RESULT_FILE ?? '',
  };
  if (s.killMaxS < s.killMinS) throw new Error('CHAOS_KILL_MAX must be at least CHAOS_KILL_MIN');
  return s;
}

/** Fixed for every run: the lease is the shortest the service accepts, so re-sends after a kill happen within the run. */
export const LEASE_S = 15;
/** The webhook send deadline the docs state (connect, headers and body). */
export const SEND_DEADLINE_S = 10;
/** The statement timeout: an answer during or just after an outage may come this long after the outage ended. */
export const STATEMENT_TIMEOUT_S = 10;
/** Retries come quickly, so a delivery that failed once is retried within the drain. */
export const RETRY_SCHEDULE = '2s,4s,8s,15s,30s,60s,60s';
export const DISPATCH_CONCURRENCY = 8;
