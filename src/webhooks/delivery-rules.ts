import type { DeliveryAttempt, DeliveryStatus } from './webhook-model.js';

/** No successful delivery for this long when a delivery runs out of attempts: the endpoint is turned off. */
export const FAILING_DISABLE_AFTER_MS = 3 * 86_400_000;

export interface AttemptResult {
  statusCode: number | null;
  durationMs: number | null;
  /** e.g. timeout, refused connection, disallowed address, redirect not followed; null for a plain non-2xx answer. */
  error: string | null;
  /** First 500 characters of the answer; null when there was no answer. */
  responseBody: string | null;
}

export type DeliveryOutcome =
  /**
   * `at` is when the attempt started (the attempt's `at`); `endedAt` when its
   * result was known, where the wait before a retry starts: a receiver that
   * hangs until the 10 s deadline must not shorten the 1 minute wait to 50 s.
   */
  | { kind: 'attempt'; at: Date; endedAt: Date; result: AttemptResult }
  /** Not sent at all: the endpoint was turned off, or the event is no longer kept. */
  | { kind: 'cancelled'; at: Date; reason: string };

export interface DeliveryDecision {
  status: DeliveryStatus;
  attempt: DeliveryAttempt | null;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
  succeeded: boolean;
  /** The receiver answered 410 on a real delivery: the endpoint turns off at once. */
  gone: boolean;
  /** A real delivery used its last attempt without success (owner emailed). */
  exhausted: boolean;
}

export const isSuccess = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300;

/**
 * The delivery state table. `attemptsBefore` is attempt_count when claimed;
 * `scheduleMs` the waits between attempts (its length + 1 is the budget).
 * A test delivery (a webhook.test event) is attempted once and never
 * changes the endpoint: no retry, no 410 shutdown, no exhaustion email.
 */
export function decideDelivery(input: {
  attemptsBefore: number;
  isTest: boolean;
  outcome: DeliveryOutcome;
  scheduleMs: number[];
}): DeliveryDecision {
  const { outcome } = input;
  if (outcome.kind === 'cancelled') {
    return {
      status: 'failed',
      attempt: null,
      nextAttemptAt: null,
      completedAt: outcome.at,
      succeeded: false,
      gone: false,
      exhausted: false,
    };
  }
  const r = outcome.result;
  const attempt: DeliveryAttempt = {
    at: outcome.at.toISOString(),
    status_code: r.statusCode,
    duration_ms: r.durationMs,
    error: r.error,
    response_body: r.responseBody,
  };
  if (isSuccess(r.statusCode)) {
    return { status: 'succeeded', attempt, nextAttemptAt: null, completedAt: outcome.at, succeeded: true, gone: false, exhausted: false };
  }
  const gone = !input.isTest && r.statusCode === 410;
  const number = input.attemptsBefore + 1;
  const budget = input.isTest ? 1 : input.scheduleMs.length + 1;
  if (!gone && number < budget) {
    const next = new Date(outcome.endedAt.getTime() + input.scheduleMs[number - 1]);
    return { status: 'pending', attempt, nextAttemptAt: next, completedAt: null, succeeded: false, gone: false, exhausted: false };
  }
  return {
    status: 'failed',
    attempt,
    nextAttemptAt: null,
    completedAt: outcome.at,
    succeeded: false,
    gone,
    exhausted: !input.isTest && !gone,
  };
}

export interface Health {
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  failingSince: Date | null;
}

const later = (a: Date | null, b: Date) => (a === null || b.getTime() > a.getTime() ? b : a);

/**
 * Folds real attempts (never test ones) into an endpoint's health. Works in
 * any order, since two workers may record out of order: a success clears
 * failing_since only if it is not older than the run, a failure starts a run
 * only if it is newer than the last success. `onRecovered` hears of each run a
 * success ends, by its failing_since.
 */
export function foldHealth(start: Health, attempts: { at: Date; success: boolean }[], onRecovered?: (failingSince: Date) => void): Health {
  const h = { ...start };
  for (const a of [...attempts].sort((x, y) => x.at.getTime() - y.at.getTime())) {
    if (a.success) {
      h.lastSuccessAt = later(h.lastSuccessAt, a.at);
      if (h.failingSince && a.at.getTime() >= h.failingSince.getTime()) {
        onRecovered?.(h.failingSince);
        h.failingSince = null;
      }
    } else {
      h.lastFailureAt = later(h.lastFailureAt, a.at);
      if (!h.failingSince && (!h.lastSuccessAt || a.at.getTime() > h.lastSuccessAt.getTime())) h.failingSince = a.at;
    }
  }
  return h;
}

/** "No successful delivery for 3 days", counted from the last success, or from creation / re-enabling if later. */
export function noSuccessFor3Days(e: { lastSuccessAt: Date | null; healthSince: Date }, now: Date): boolean {
  const since = Math.max(e.lastSuccessAt?.getTime() ?? 0, e.healthSince.getTime());
  return now.getTime() - since >= FAILING_DISABLE_AFTER_MS;
}
