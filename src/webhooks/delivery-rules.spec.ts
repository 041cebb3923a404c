import { decideDelivery, foldHealth, noSuccessFor3Days, type AttemptResult } from './delivery-rules';

const SCHEDULE = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000];
const at = new Date('2026-01-01T00:00:00.000Z');
const answer = (statusCode: number | null, error: string | null = null): AttemptResult => ({
  statusCode,
  durationMs: 12,
  error,
  responseBody: statusCode === null ? null : 'ok',
});
const decide = (attemptsBefore: number, result: AttemptResult, isTest = false) =>
  decideDelivery({ attemptsBefore, isTest, scheduleMs: SCHEDULE, outcome: { kind: 'attempt', at, endedAt: at, result } });

describe('delivery transitions', () => {
  it('any 2xx succeeds, with completed_at set and next_attempt_at null', () => {
    for (const code of [200, 202, 204, 299]) {
      expect(decide(0, answer(code))).toMatchObject({ status: 'succeeded', completedAt: at, nextAttemptAt: null, succeeded: true });
    }
  });

  it('a failure with attempts left stays pending, next attempt per the schedule', () => {
    const waits = SCHEDULE.map((_, i) => decide(i, answer(500)).nextAttemptAt!.getTime() - at.getTime());
    expect(waits).toEqual(SCHEDULE);
    expect(decide(0, answer(null, 'timeout'))).toMatchObject({ status: 'pending', completedAt: null, exhausted: false });
  });

  it('waits from the end of the failed attempt, not its start: after a 10 s timeout the next one is 1 minute later', () => {
    const endedAt = new Date(at.getTime() + 10_000);
    const timedOut = { statusCode: null, durationMs: 10_000, error: 'timeout', responseBody: null };
    const d = decideDelivery({
      attemptsBefore: 0,
      isTest: false,
      scheduleMs: SCHEDULE,
      outcome: { kind: 'attempt', at, endedAt, result: timedOut },
    });
    expect(d.nextAttemptAt).toEqual(new Date(endedAt.getTime() + 60_000));
    // The attempt keeps its start as `at`; its duration leads to the end.
    expect(d.attempt).toMatchObject({ at: at.toISOString(), duration_ms: 10_000 });
  });

  it('the 8th failed attempt fails the delivery (exhausted)', () => {
    expect(decide(7, answer(503))).toMatchObject({ status: 'failed', completedAt: at, nextAttemptAt: null, exhausted: true, gone: false });
  });

  it('redirects, other statuses and connection errors are failures', () => {
    for (const r of [answer(301, 'redirect not followed'), answer(404), answer(null, 'refused connection')])
      expect(decide(0, r).status).toBe('pending');
  });

  it('410 fails at once and marks the endpoint gone', () => {
    expect(decide(0, answer(410))).toMatchObject({ status: 'failed', gone: true, exhausted: false });
  });

  it('a test delivery is attempted once, never gone, never exhausted', () => {
    expect(decide(0, answer(500), true)).toMatchObject({ status: 'failed', exhausted: false, gone: false });
    expect(decide(0, answer(410), true)).toMatchObject({ status: 'failed', exhausted: false, gone: false });
    expect(decide(0, answer(200), true)).toMatchObject({ status: 'succeeded' });
  });

  it('records the attempt exactly as the API shows it', () => {
    expect(decide(0, { statusCode: 500, durationMs: 34, error: null, responseBody: 'boom' }).attempt).toEqual({
      at: '2026-01-01T00:00:00.000Z',
      status_code: 500,
      duration_ms: 34,
      error: null,
      response_body: 'boom',
    });
  });

  it('a cancelled delivery fails without an attempt', () => {
    expect(
      decideDelivery({
        attemptsBefore: 2,
        isTest: false,
        scheduleMs: SCHEDULE,
        outcome: { kind: 'cancelled', at, reason: 'endpoint disabled' },
      }),
    ).toEqual({
      status: 'failed',
      attempt: null,
      nextAttemptAt: null,
      completedAt: at,
      succeeded: false,
      gone: false,
      exhausted: false,
    });
  });
});

describe('endpoint health', () => {
  const t = (min: number) => new Date(at.getTime() + min * 60_000);
  const empty = { lastSuccessAt: null, lastFailureAt: null, failingSince: null };

  it('failing_since starts at the first failure of a run and clears on success', () => {
    const h1 = foldHealth(empty, [
      { at: t(1), success: false },
      { at: t(2), success: false },
    ]);
    expect(h1).toEqual({ lastSuccessAt: null, lastFailureAt: t(2), failingSince: t(1) });
    const h2 = foldHealth(h1, [{ at: t(3), success: true }]);
    expect(h2).toEqual({ lastSuccessAt: t(3), lastFailureAt: t(2), failingSince: null });
  });

  it('tells of each run of failures a success ends, by its failing_since, and of none while healthy', () => {
    const ended: Date[] = [];
    const h = foldHealth(
      empty,
      [
        { at: t(1), success: true },
        { at: t(2), success: false },
        { at: t(3), success: false },
        { at: t(4), success: true },
        { at: t(5), success: true },
        { at: t(6), success: false },
        { at: t(7), success: true },
      ],
      (since) => ended.push(since),
    );
    expect(ended).toEqual([t(2), t(6)]);
    expect(h.failingSince).toBeNull();
    const none: Date[] = [];
    foldHealth({ ...empty, failingSince: t(5) }, [{ at: t(4), success: true }], (since) => none.push(since));
    expect(none).toEqual([]);
  });

  it('is not fooled by results recorded out of order', () => {
    const failing = foldHealth(empty, [{ at: t(5), success: false }]);
    // A success from before the run, recorded late, leaves the run alone.
    expect(foldHealth(failing, [{ at: t(4), success: true }])).toEqual({ lastSuccessAt: t(4), lastFailureAt: t(5), failingSince: t(5) });
    // A failure from before the last success does not start a run.
    const ok = foldHealth(empty, [{ at: t(5), success: true }]);
    expect(foldHealth(ok, [{ at: t(4), success: false }])).toEqual({ lastSuccessAt: t(5), lastFailureAt: t(4), failingSince: null });
  });

  it('3 days without success counts from the last success, or creation/re-enabling if later', () => {
    const now = new Date(at.getTime() + 3 * 86_400_000);
    expect(noSuccessFor3Days({ lastSuccessAt: null, healthSince: at }, now)).toBe(true);
    expect(noSuccessFor3Days({ lastSuccessAt: null, healthSince: new Date(at.getTime() + 1) }, now)).toBe(false);
    expect(noSuccessFor3Days({ lastSuccessAt: t(1), healthSince: at }, now)).toBe(false);
  });
});
