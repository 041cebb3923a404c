import { createHash } from 'node:crypto';
import { runCli } from '../support/cli';
import { linkToken, mintLink, openConsole } from '../support/console';
import type { TestFirm } from '../support/factories';
import type { TestApp } from '../support/test-app';
import { HOUR_MS, type ConsoleOverHttp } from './console-context';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The console over HTTP: the one-time link, the session and its end. */
export function entering(shared: ConsoleOverHttp): void {
  describe('entering', () => {
    let t: TestApp;
    let firm: TestFirm;
    const { tokens, signIn, auditOf } = shared;
    beforeAll(() => {
      ({ t, firm } = shared);
    });

    it('`console link --json` prints exactly one object {url, expires_at}: a link on BASE_URL for 15 minutes', async () => {
      const run = await runCli(['console', 'link', '--org', firm.slug, '--mode', 'test', '--json'], {
        databaseUrl: t.databaseUrl,
        env: { BASE_URL: 'https://console.example.com' },
      });
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(Object.keys(run.json)).toEqual(['url', 'expires_at']);
      const token = linkToken(run.json.url);
      expect(run.json.url).toBe(`https://console.example.com/console/sign-in/${token}`);
      expect(token).toMatch(/^console_link_[A-Za-z0-9_-]{43}$/);
      const minutes = (Date.parse(run.json.expires_at) - Date.now()) / 60_000;
      expect(minutes).toBeGreaterThan(13);
      expect(minutes).toBeLessThanOrEqual(15);
      expect(run.stderr).not.toContain(token.slice(13));
      // The link opens a test-mode session.
      const c = await openConsole(t.baseUrl, token);
      expect(await (await c.get('/console/endpoints')).text()).toContain('Test mode');

      // --read-only: the same one object; its session sees and changes nothing.
      const readOnly = await runCli(['console', 'link', '--org', firm.slug, '--read-only', '--json'], { databaseUrl: t.databaseUrl });
      expect([readOnly.code, Object.keys(readOnly.json), readOnly.stdout.trim().split('\n').length]).toEqual([0, ['url', 'expires_at'], 1]);
      const looker = await openConsole(t.baseUrl, linkToken(readOnly.json.url));
      tokens.push(looker.secret);
      expect(await (await looker.get('/console/endpoints')).text()).toContain('>Read-only</span>');
      expect((await looker.post('/console/endpoints', { url: 'https://hooks.example.com/ro', types: 'lead.created' })).status).toBe(403);

      const badMode = await runCli(['console', 'link', '--org', firm.slug, '--mode', 'staging', '--json'], { databaseUrl: t.databaseUrl });
      expect([badMode.code, badMode.json.error.message]).toEqual([2, '--mode must be live or test, not "staging"']);
      const noFirm = await runCli(['console', 'link', '--org', 'no-such-firm', '--json'], { databaseUrl: t.databaseUrl });
      expect([noFirm.code, noFirm.json.error.message]).toEqual([1, 'no firm with id or slug "no-such-firm"']);
    });

    it('opening the link signs in (HttpOnly, SameSite=Strict cookie on /console) and lands on the list without the token; only hashes are stored', async () => {
      const { token } = await mintLink(t.app, firm.orgId);
      const opened = await fetch(`${t.baseUrl}/console/sign-in/${token}`, { redirect: 'manual' });
      expect(opened.status).toBe(303);
      expect(opened.headers.get('location')).toBe('/console/endpoints');
      const cookie = opened.headers.get('set-cookie')!;
      const secret = /^console_session=(console_session_[A-Za-z0-9_-]{43}); /.exec(cookie)![1];
      tokens.push(token, secret);
      expect(cookie.split('; ').slice(1).sort()).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/console', 'SameSite=Strict']);

      const links = await t.sql('SELECT * FROM console_links WHERE token_hash = $1', [sha256(token)]);
      const sessions = await t.sql('SELECT * FROM console_sessions WHERE session_hash = $1', [sha256(secret)]);
      expect([links.length, sessions.length]).toEqual([1, 1]);
      expect(links[0].used_at).not.toBeNull();
      const stored = JSON.stringify([...(await t.sql('SELECT * FROM console_links')), ...(await t.sql('SELECT * FROM console_sessions'))]);
      expect(stored).not.toContain(token.slice(13));
      expect(stored).not.toContain(secret.slice(16));
      expect(await auditOf(firm.orgId, 'console.signed_in')).toContainEqual(
        expect.objectContaining({ actor_type: 'console_session', actor_id: sessions[0].id }),
      );
    });

    it('a used, expired or unknown link gets a plain page saying so (4xx) and no session', async () => {
      const used = await mintLink(t.app, firm.orgId);
      tokens.push(used.token);
      await openConsole(t.baseUrl, used.token);
      const expired = await mintLink(t.app, firm.orgId);
      tokens.push(expired.token);
      t.clock.advance(15 * 60_000 + 1000);
      try {
        const cases: [string, number, string][] = [
          [used.token, 410, 'This console link was already used'],
          [expired.token, 410, 'This console link has expired'],
          [`console_link_${'A'.repeat(43)}`, 404, 'This console link is not valid'],
          ['nonsense', 404, 'This console link is not valid'],
        ];
        for (const [token, status, says] of cases) {
          const r = await fetch(`${t.baseUrl}/console/sign-in/${token}`, { redirect: 'manual' });
          expect([r.status, r.headers.get('set-cookie'), r.headers.get('content-type')]).toEqual([
            status,
            null,
            'text/html; charset=utf-8',
          ]);
          expect(await r.text()).toContain(says);
        }
      } finally {
        t.clock.reset();
      }
    });

    it('a session ends after 12 hours, and on "Sign out" (which removes the cookie) in every process', async () => {
      const c = await signIn(firm);
      t.clock.advance(12 * HOUR_MS - 60_000);
      try {
        expect((await c.get('/console/endpoints')).status).toBe(200);
        t.clock.advance(61_000);
        const ended = await c.get('/console/endpoints');
        expect(ended.status).toBe(401);
        expect(await ended.text()).toContain('Your console session has ended');
      } finally {
        t.clock.reset();
      }
      const d = await signIn(firm);
      const out = await d.post('/console/sign-out');
      expect(out.status).toBe(200);
      // Removed by @fastify/cookie's clearCookie: empty, expired, with the attributes it was set with.
      const removed = out.headers.get('set-cookie')!.split('; ');
      expect(removed[0]).toBe('console_session=');
      expect(removed.slice(1).sort()).toEqual([
        'Expires=Thu, 01 Jan 1970 00:00:00 GMT',
        'HttpOnly',
        'Max-Age=0',
        'Path=/console',
        'SameSite=Strict',
      ]);
      expect((await d.get('/console/endpoints')).status).toBe(401);
      expect(await auditOf(firm.orgId, 'console.signed_out')).toHaveLength(1);
    });

    it('without a session: 401, as a page for a browser and as problem+json for anything else', async () => {
      const page = await fetch(`${t.baseUrl}/console/endpoints`, { headers: { accept: 'text/html' } });
      expect([page.status, page.headers.get('content-type')]).toEqual([401, 'text/html; charset=utf-8']);
      const json = await fetch(`${t.baseUrl}/console/endpoints`);
      expect([json.status, ((await json.json()) as any).code]).toEqual([401, 'console_sign_in_required']);
      // From another site (an email's link), SameSite=Strict withholds the cookie: the page reloads itself once from here.
      const crossSite = await fetch(`${t.baseUrl}/console/endpoints`, { headers: { accept: 'text/html', 'sec-fetch-site': 'cross-site' } });
      expect(await crossSite.text()).toContain('<meta http-equiv="refresh" content="0">');
    });
  });
}
