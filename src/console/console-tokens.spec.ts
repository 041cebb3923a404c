import {
  csrfTokenOf,
  isLinkToken,
  isSessionSecret,
  newLinkToken,
  newSessionSecret,
  sameToken,
  sessionCookie,
  sessionCookieOf,
} from './console-tokens';
import { chartHours } from './chart-hours';

describe('console credentials', () => {
  it('are 32 random bytes behind a prefix that names them', () => {
    const link = newLinkToken();
    const session = newSessionSecret();
    expect(link).toMatch(/^console_link_[A-Za-z0-9_-]{43}$/);
    expect(session).toMatch(/^console_session_[A-Za-z0-9_-]{43}$/);
    expect([isLinkToken(link), isLinkToken(session), isSessionSecret(session), isSessionSecret(link)]).toEqual([true, false, true, false]);
    expect(newLinkToken()).not.toBe(link);
  });

  it('the CSRF token is bound to its session', () => {
    const a = newSessionSecret();
    expect(csrfTokenOf(a)).toBe(csrfTokenOf(a));
    expect(csrfTokenOf(a)).not.toBe(csrfTokenOf(newSessionSecret()));
    expect([
      sameToken(csrfTokenOf(a), csrfTokenOf(a)),
      sameToken('', csrfTokenOf(a)),
      sameToken(`${csrfTokenOf(a)}x`, csrfTokenOf(a)),
    ]).toEqual([true, false, false]);
  });

  it('the cookie: HttpOnly, SameSite=Strict, the console path, Secure only when asked; read back from a Cookie header', () => {
    expect(sessionCookie('v', 43200, false)).toBe('console_session=v; Path=/console; Max-Age=43200; HttpOnly; SameSite=Strict');
    expect(sessionCookie('v', 43200, true)).toBe('console_session=v; Path=/console; Max-Age=43200; HttpOnly; SameSite=Strict; Secure');
    expect(sessionCookieOf('a=1; console_session=abc; b=2')).toBe('abc');
    expect(sessionCookieOf('xconsole_session=abc')).toBeUndefined();
    expect(sessionCookieOf(undefined)).toBeUndefined();
  });
});

describe('the chart’s hours', () => {
  it('lists every hour of the range, the current one last, with the counts of each status and zeros elsewhere', () => {
    const now = new Date('2026-05-01T14:35:00Z');
    const hours = chartHours(
      [
        { hour: '2026-05-01T14:00:00.000Z', status: 'succeeded', deliveries: 3 },
        { hour: '2026-05-01T14:00:00.000Z', status: 'failed', deliveries: 1 },
        { hour: '2026-05-01T12:00:00.000Z', status: 'pending', deliveries: 2 },
        { hour: '2026-04-20T12:00:00.000Z', status: 'failed', deliveries: 9 },
      ],
      3,
      now,
    );
    expect(hours).toEqual([
      { hour: '2026-05-01T12:00:00.000Z', succeeded: 0, failed: 0, pending: 2 },
      { hour: '2026-05-01T13:00:00.000Z', succeeded: 0, failed: 0, pending: 0 },
      { hour: '2026-05-01T14:00:00.000Z', succeeded: 3, failed: 1, pending: 0 },
    ]);
  });
});
