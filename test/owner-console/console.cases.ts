import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { WebhookEndpointsService } from '../../src/webhooks';
import { runCli } from '../support/cli';
import { linkToken, mintLink, openConsole, type ConsoleBrowser } from '../support/console';
import { recordEvent } from '../support/events';
import { createFirm, type TestFirm } from '../support/factories';
import { secretsIn, tokenRunsIn } from '../support/run-log';
import { startTestApp, type TestApp } from '../support/test-app';

const sha256 = (text: string) => createHash('sha256').update(text).digest();
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const HOUR_MS = 3600_000;

/**
 * The console's rules over HTTP, as a browser meets them: the one-time link, the session cookie, the firm and
 * mode boundary, the CSRF and Origin refusals, the headers, escaping, and each button through the webhooks
 * context's own rules with the session as the audit log's actor. (The same flows in Chromium:
 * test/console-browser.e2e.spec.ts.) The api role: no dispatcher, so nothing is ever sent anywhere.
 */
describe('the console over HTTP', () => {
  const lines: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  let endpoints: WebhookEndpointsService;
  const tokens: string[] = [];

  const endpointFor = async (f: TestFirm, opts: { livemode?: boolean; description?: string } = {}) =>
    (
      await endpoints.create({
        orgId: f.orgId,
        url: `https://hooks.example.com/${Math.random().toString(36).slice(2)}`,
        eventTypes: ['call.completed'],
        ...opts,
      })
    ).endpoint.id;
  const signIn = async (f: TestFirm, livemode = true): Promise<ConsoleBrowser> => {
    const { token } = await mintLink(t.app, f.slug, livemode);
    tokens.push(token);
    const c = await openConsole(t.baseUrl, token);
    tokens.push(c.secret);
    return c;
  };
  const deliveriesOf = async (endpointId: string): Promise<number> =>
    (await t.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]))[0].n;
  const auditOf = (orgId: string, action: string) =>
    t.sql('SELECT actor_type, actor_id, resource_ids, details FROM audit_log WHERE org_id = $1 AND action = $2 ORDER BY id', [
      orgId,
      action,
    ]);

  beforeAll(async () => {
    t = await startTestApp({ env: { ROLE: 'api' }, logStream });
    firm = await createFirm(t.app);
    other = await createFirm(t.app);
    endpoints = t.app.get(WebhookEndpointsService);
  });
  afterAll(() => t.close());

  describe('entering', () => {
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
      expect(out.headers.get('set-cookie')).toMatch(/^console_session=; Path=\/console; Max-Age=0; HttpOnly; SameSite=Strict$/);
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

  describe('seeing', () => {
    it('lists the firm’s endpoints of the session’s mode only, escaping what the owner typed; pages carry the security headers', async () => {
      const live = await endpointFor(firm, { description: '<script>document.title="x"</script> & CRM' });
      const test = await endpointFor(firm, { livemode: false });
      const foreign = await endpointFor(other);
      const c = await signIn(firm);
      const r = await c.get('/console/endpoints');
      const html = await r.text();
      expect(html).toContain(`/console/endpoints/${live}"`);
      expect(html).not.toContain(test);
      expect(html).not.toContain(foreign);
      expect(html).toContain('&lt;script&gt;document.title=&quot;x&quot;&lt;/script&gt; &amp; CRM');
      expect(html).not.toContain('<script>document');
      const csp = r.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self';");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(r.headers.get('referrer-policy')).toBe('same-origin');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(html).not.toMatch(/<script>|<script [^>]*>[^<]|\son[a-z]+=|style="/);
      for (const asset of ['console.js', 'console.css', 'uPlot.iife.min.js', 'uPlot.min.css']) {
        const a = await fetch(`${t.baseUrl}/console/assets/${asset}`);
        expect([asset, a.status, a.headers.get('x-content-type-options')]).toEqual([asset, 200, 'nosniff']);
      }
      expect((await fetch(`${t.baseUrl}/console/assets/uPlot.esm.js`)).status).toBe(404);
    });

    it('another firm’s or another mode’s endpoint answers 404 exactly like an unknown id, on every page and button', async () => {
      const foreign = await endpointFor(other);
      const testMode = await endpointFor(firm, { livemode: false });
      const c = await signIn(firm);
      const answer = async (method: 'GET' | 'POST', path: (id: string) => string, id: string) => {
        const r = method === 'GET' ? await c.get(path(id)) : await c.post(path(id));
        return {
          status: r.status,
          text: (await r.text())
            .split(id)
            .join('<id>')
            .replace(/"request_id":"[^"]+"/, ''),
        };
      };
      const routes: ['GET' | 'POST', (id: string) => string][] = [
        ['GET', (id) => `/console/endpoints/${id}`],
        ['GET', (id) => `/console/endpoints/${id}/deliveries-per-hour`],
        ['POST', (id) => `/console/endpoints/${id}/test`],
        ['POST', (id) => `/console/endpoints/${id}/disable`],
        ['POST', (id) => `/console/endpoints/${id}/rotate-secret`],
        ['POST', (id) => `/console/endpoints/${id}/delete`],
      ];
      for (const [method, path] of routes) {
        const unknown = await answer(method, path, UNKNOWN_ID);
        expect(unknown.status).toBe(404);
        expect(await answer(method, path, foreign)).toEqual(unknown);
        expect(await answer(method, path, testMode)).toEqual(unknown);
      }
      const rows = await t.sql('SELECT status, secret_last4 FROM webhook_endpoints WHERE id = ANY($1) ORDER BY id', [[foreign, testMode]]);
      expect(rows.map((r) => r.status)).toEqual(['enabled', 'enabled']);
      expect((await deliveriesOf(foreign)) + (await deliveriesOf(testMode))).toBe(0);
    });

    it('an endpoint’s deliveries, newest first, 20 a page, the next page by the API’s cursor', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f);
      const ids: string[] = [];
      for (let i = 0; i < 23; i++) {
        const e = await t.app
          .get(Database)
          .transaction((tx) =>
            recordEvent(t.app.get(EventsService), tx, { orgId: f.orgId, type: 'call.completed', data: { call_id: `call_${i}` } }),
          );
        ids.push(e.envelope.id);
      }
      const c = await signIn(f);
      const shown = (html: string) => [...html.matchAll(/data-event-id="([^"]+)"/g)].map((m) => m[1]);
      const first = await (await c.get(`/console/endpoints/${id}`)).text();
      expect(shown(first)).toEqual(ids.slice(3).reverse());
      const next = /href="(\/console\/endpoints\/[^"]+\?cursor=[^"]+)"/.exec(first)![1].replace(/&amp;/g, '&');
      const second = await (await c.get(next)).text();
      expect(shown(second)).toEqual(ids.slice(0, 3).reverse());
      expect(second).not.toContain('?cursor=');
    });

    it('the chart’s JSON: deliveries per hour by status over the last 24 hours and 7 days', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f);
      const c = await signIn(f);
      for (let i = 0; i < 2; i++) expect((await c.post(`/console/endpoints/${id}/test`)).status).toBe(303);
      const r = await c.get(`/console/endpoints/${id}/deliveries-per-hour`, { accept: 'application/json' });
      const body = (await r.json()) as any;
      expect([body.last_24_hours.length, body.last_7_days.length]).toEqual([24, 168]);
      expect(body.last_24_hours.at(-1)).toMatchObject({ pending: 2, succeeded: 0, failed: 0 });
      expect(body.last_7_days.slice(0, -1).every((h: { pending: number }) => h.pending === 0)).toBe(true);
    });
  });

  describe('acting', () => {
    it('refuses a state-changing request from another origin, or without the session’s token, with 403 and changes nothing', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f);
      const c = await signIn(f);
      const d = await signIn(f);
      const path = `/console/endpoints/${id}/test`;
      const refused = [
        await c.post(path, {}, { origin: 'https://evil.example' }),
        await c.post(path, {}, { origin: 'null' }),
        await c.post(path, {}, { origin: '', referer: 'https://evil.example/page' }),
        await c.post(path, { csrf_token: '' }),
        await c.post(path, { csrf_token: d.csrf }),
        await c.post(path, {}, { 'content-type': 'text/plain' }),
      ];
      expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 415]);
      expect(await deliveriesOf(id)).toBe(0);
      expect(await auditOf(f.orgId, 'webhook_endpoint.test_sent')).toEqual(
        expect.not.arrayContaining([expect.objectContaining({ details: { endpoint_id: id } })]),
      );
      // Its own origin as Origin, as BASE_URL's origin, or (without Origin) as Referer: accepted.
      expect((await c.post(path)).status).toBe(303);
      expect((await c.post(path, {}, { origin: 'http://api.test' })).status).toBe(303);
      expect((await c.post(path, {}, { origin: '', referer: `${t.baseUrl}/console/endpoints/${id}` })).status).toBe(303);
      expect(await deliveriesOf(id)).toBe(3);
    });

    it('Send test and Resend: the API’s 5-a-minute limit (429) and 409 while turned off; audited with the session as actor', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f);
      const c = await signIn(f);
      const sent = await c.post(`/console/endpoints/${id}/test`);
      expect([sent.status, sent.headers.get('location')]).toEqual([303, `/console/endpoints/${id}?done=test-sent`]);
      const [delivery] = await t.sql('SELECT id, event_id FROM webhook_deliveries WHERE endpoint_id = $1', [id]);
      const resent = await c.post(`/console/endpoints/${id}/deliveries/${delivery.id}/resend`);
      expect(resent.status).toBe(303);
      const elsewhere = await endpointFor(f);
      expect((await c.post(`/console/endpoints/${elsewhere}/deliveries/${delivery.id}/resend`)).status).toBe(404);
      for (let i = 0; i < 3; i++) expect((await c.post(`/console/endpoints/${id}/test`)).status).toBe(303);
      const limited = await c.post(`/console/endpoints/${id}/test`);
      expect([limited.status, Number(limited.headers.get('retry-after')) > 0]).toEqual([429, true]);
      expect(await limited.text()).toContain('At most 5 test events and resends per endpoint per minute');
      const redeliveries = await t.sql(`SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1 AND trigger = 'redelivery'`, [id]);
      expect(redeliveries).toEqual([{ event_id: delivery.event_id }]);
      const actor = { actor_type: 'console_session', actor_id: expect.any(String) };
      expect(await auditOf(f.orgId, 'webhook_delivery.redelivered')).toContainEqual(expect.objectContaining(actor));

      expect((await c.post(`/console/endpoints/${id}/disable`)).status).toBe(303);
      const off = await c.post(`/console/endpoints/${id}/deliveries/${delivery.id}/resend`);
      expect([off.status, (await off.text()).includes('turned off (owner)')]).toEqual([409, true]);
      expect((await c.post(`/console/endpoints/${id}/enable`)).status).toBe(303);
      for (const action of ['webhook_endpoint.disabled', 'webhook_endpoint.enabled', 'webhook_endpoint.test_sent']) {
        expect(await auditOf(f.orgId, action)).toContainEqual(expect.objectContaining({ ...actor, resource_ids: [expect.any(String)] }));
      }
    });

    it('events while an endpoint is off: a failed delivery with no attempt, shown so, resent once it is back on', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f);
      const c = await signIn(f);
      expect((await c.post(`/console/endpoints/${id}/disable`)).status).toBe(303);
      const event = await t.app
        .get(Database)
        .transaction((tx) =>
          recordEvent(t.app.get(EventsService), tx, { orgId: f.orgId, type: 'call.completed', data: { call_id: 'call_off' } }),
        );
      const [missed] = await t.sql('SELECT id, status, attempt_count FROM webhook_deliveries WHERE endpoint_id = $1', [id]);
      expect(missed).toMatchObject({ status: 'failed', attempt_count: 0 });
      const page = await (await c.get(`/console/endpoints/${id}`)).text();
      expect(page).toContain('No attempts (the endpoint was off: nothing was sent).');
      expect(page).toContain(event.envelope.id);
      expect((await c.post(`/console/endpoints/${id}/enable`)).status).toBe(303);
      expect((await c.post(`/console/endpoints/${id}/deliveries/${missed.id}/resend`)).status).toBe(303);
      const resent = await t.sql(`SELECT event_id, status FROM webhook_deliveries WHERE endpoint_id = $1 AND trigger = 'redelivery'`, [id]);
      expect(resent).toEqual([{ event_id: event.envelope.id, status: 'pending' }]);
    });

    it('Add endpoint, Rotate secret and Delete: the CLI’s rules (https, public, 5 at most), the secret shown once', async () => {
      const f = await createFirm(t.app);
      const c = await signIn(f);
      const add = (url: string) =>
        c.post('/console/endpoints', { url, description: 'Intake <CRM>', types: ['lead.created', 'call.completed'] });
      for (const [url, says] of [
        ['http://hooks.example.com/x', 'url must be an https URL'],
        ['https://127.0.0.1/x', 'points at an address that is not public'],
      ]) {
        const r = await add(url);
        expect([r.status, (await r.text()).includes(says)]).toEqual([400, true]);
      }
      const first = await add('https://hooks.example.com/one');
      expect(first.status).toBe(200);
      const secret = /whsec_[A-Za-z0-9+/=]+/.exec(await first.text())![0];
      tokens.push(secret);
      const [row] = await t.sql('SELECT id, event_types, description, livemode, secret_last4 FROM webhook_endpoints WHERE org_id = $1', [
        f.orgId,
      ]);
      expect(row).toMatchObject({
        event_types: ['call.completed', 'lead.created'],
        description: 'Intake <CRM>',
        secret_last4: secret.slice(-4),
      });
      for (let i = 2; i <= 5; i++) expect((await add(`https://hooks.example.com/${i}`)).status).toBe(200);
      const sixth = await add('https://hooks.example.com/6');
      expect([sixth.status, (await sixth.text()).includes('already has 5 webhook endpoints')]).toEqual([400, true]);

      const rotated = await c.post(`/console/endpoints/${row.id}/rotate-secret`);
      const text = await rotated.text();
      const newSecret = /whsec_[A-Za-z0-9+/=]+/.exec(text)![0];
      tokens.push(newSecret);
      expect(newSecret).not.toBe(secret);
      const [after] = await t.sql('SELECT secret_last4, previous_secret_expires_at FROM webhook_endpoints WHERE id = $1', [row.id]);
      expect(after.secret_last4).toBe(newSecret.slice(-4));
      expect(Math.abs(after.previous_secret_expires_at.getTime() - Date.now() - 24 * HOUR_MS)).toBeLessThan(5 * 60_000);
      expect(text).toContain('signed with both the old and the new secret');

      const deleted = await c.post(`/console/endpoints/${row.id}/delete`);
      expect([deleted.status, deleted.headers.get('location')]).toEqual([303, '/console/endpoints?done=deleted']);
      expect(await t.sql('SELECT id FROM webhook_endpoints WHERE id = $1', [row.id])).toEqual([]);
      for (const action of ['webhook_endpoint.created', 'webhook_endpoint.secret_rotated', 'webhook_endpoint.deleted']) {
        expect(await auditOf(f.orgId, action)).toContainEqual(expect.objectContaining({ actor_type: 'console_session' }));
      }
    });
  });

  it('no link token, session id or signing secret reaches a log line', () => {
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
    expect([out.status, out.headers.get('set-cookie')!.endsWith('; Secure')]).toEqual([200, true]);
  });
});
