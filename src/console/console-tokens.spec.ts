import { csrfSecretOf, isLinkToken, isSessionSecret, newLinkToken, newSessionSecret } from './console-tokens';
import { chartHours } from './chart-hours';
import { escapeShown, showBidiControls, timeIn } from './console-text';
import { parseForm } from './console-form';

describe('console credentials', () => {
  it('are 32 random bytes behind a prefix that names them', () => {
    const link = newLinkToken();
    const session = newSessionSecret();
    expect(link).toMatch(/^console_link_[A-Za-z0-9_-]{43}$/);
    expect(session).toMatch(/^console_session_[A-Za-z0-9_-]{43}$/);
    expect([isLinkToken(link), isLinkToken(session), isSessionSecret(session), isSessionSecret(link)]).toEqual([true, false, true, false]);
    expect(newLinkToken()).not.toBe(link);
  });

  it('the CSRF secret is bound to its session', () => {
    const a = newSessionSecret();
    expect(csrfSecretOf(a)).toBe(csrfSecretOf(a));
    expect(csrfSecretOf(a)).not.toBe(csrfSecretOf(newSessionSecret()));
    expect(csrfSecretOf(a)).not.toContain(a.slice(16));
  });
});

describe('how the console prints untrusted text', () => {
  it('shows each bidirectional control as its code point, then escapes HTML', () => {
    expect(showBidiControls('ok \u202Egnp.exe')).toBe('ok <U+202E>gnp.exe');
    expect(escapeShown('a\u2066b\u2069 <i>&"\'\u200F\u061C')).toBe(
      'a&lt;U+2066&gt;b&lt;U+2069&gt; &lt;i&gt;&amp;&quot;&#39;&lt;U+200F&gt;&lt;U+061C&gt;',
    );
    expect(escapeShown('plain é ✓')).toBe('plain é ✓');
  });

  it('shows instants in the firm’s zone with its abbreviation', () => {
    expect(timeIn('America/Chicago')('2026-05-01T14:06:41.900Z')).toBe('2026-05-01 09:06:41 CDT');
    expect(timeIn('America/Chicago')(new Date('2026-01-15T00:30:00Z'))).toBe('2026-01-14 18:30:00 CST');
    expect(timeIn('UTC')(null)).toBe('—');
    expect(timeIn('Not/AZone')('2026-05-01T14:06:41Z')).toBe('2026-05-01 14:06:41 UTC');
  });
});

describe('the console’s form parser (@fastify/formbody’s parser option)', () => {
  it('reads fields as browsers encode them, repeated ones as a list, and refuses what is not UTF-8', () => {
    expect(parseForm('csrf_token=t&types=a&types=b&description=Caf%C3%A9+%26+co')).toEqual({
      csrf_token: 't',
      types: ['a', 'b'],
      description: 'Café & co',
    });
    expect(() => parseForm('description=%FF')).toThrow('The body is not valid UTF-8.');
    expect(() => parseForm(`description=${Buffer.from([0xc3]).toString()}`)).toThrow('The body is not valid UTF-8.');
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
