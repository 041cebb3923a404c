import { linkToken, mintLink } from '../support/console';
import { createFirm } from '../support/factories';
import { secretsIn, tokenRunsIn } from '../support/run-log';
import { startTestApp, type TestApp } from '../support/test-app';
import { acting } from './console-acting';
import { ConsoleOverHttp } from './console-context';
import { editing } from './console-editing';
import { entering } from './console-entering';
import { finding } from './console-finding';
import { seeing } from './console-seeing';
import { sessions } from './console-sessions';

/**
 * The console's rules over HTTP, as a browser meets them: the one-time link, the session cookie, the firm and
 * mode boundary, the CSRF and Origin refusals, the headers, escaping, each button through the webhooks context's own
 * rules with the session as the audit log's actor, editing, filters and pages, payloads, read-only sessions and
 * ending sessions. (The same flows in Chromium:
 * test/owner-console/console-browser.cases.ts.) The api role: no dispatcher, so nothing is ever sent anywhere.
 */
describe('the console over HTTP', () => {
  const c = new ConsoleOverHttp();
  beforeAll(() => c.start());
  afterAll(() => c.t.close());

  entering(c);
  seeing(c);
  acting(c);
  editing(c);
  finding(c);
  sessions(c);

  it('no link token, session id or signing secret reaches a log line', () => {
    const { tokens, lines } = c;
    expect(tokens.length).toBeGreaterThan(10);
    expect(secretsIn(lines)).toEqual([]);
    expect(tokenRunsIn(lines, tokens)).toEqual([]);
    expect(lines.some((l) => l.includes('/console/sign-in/[REDACTED]'))).toBe(true);
  });
});

describe('the console behind an https BASE_URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'api', BASE_URL: 'https://api.example.com' } });
  });
  afterAll(() => t.close());

  it('marks the session cookie Secure, and takes BASE_URL’s origin as its own', async () => {
    const firm = await createFirm(t.app);
    const { url, token } = await mintLink(t.app, firm.slug);
    expect(url.startsWith('https://api.example.com/console/sign-in/')).toBe(true);
    const opened = await fetch(`${t.baseUrl}/console/sign-in/${token}`, { redirect: 'manual' });
    const cookie = opened.headers.get('set-cookie')!;
    expect(cookie.split('; ')).toContain('Secure');
    const secret = /console_session=([^;]+)/.exec(cookie)![1];
    linkToken(`https://x/${secret}`);
    const headers = { cookie: `console_session=${secret}`, accept: 'text/html' };
    const page = await (await fetch(`${t.baseUrl}/console/endpoints`, { headers })).text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)![1];
    const out = await fetch(`${t.baseUrl}/console/sign-out`, {
      method: 'POST',
      headers: { ...headers, origin: 'https://api.example.com', 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf_token=${csrf}`,
    });
    expect([out.status, out.headers.get('set-cookie')!.split('; ').includes('Secure')]).toEqual([200, true]);
  });
});
