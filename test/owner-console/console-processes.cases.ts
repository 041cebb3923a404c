import { WebhookEndpointsService } from '../../src/webhooks';
import { runCli } from '../support/cli';
import { mintLink, openConsole } from '../support/console';
import { createTestDatabase } from '../support/database';
import { createFirm, type TestFirm } from '../support/factories';
import { serviceEnv, startService, stopService, type ServiceProcess } from '../support/processes';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The console served by two api processes on one database, as in the multi-process setup: a session
 * opened through one is the session of the other, and ends in both at once. One is the compiled service in a
 * process of its own, the other the in-process app: they share only the database, as two processes do, and a
 * second compiled process would add only its start (about 2 s of CPU). `console link` as a process, with its
 * --json answer, is run by test/owner-console/console.cases.ts; here the link is minted by the service that command
 * calls, and `console revoke --all` runs as a process of its own, as an operator would run it.
 */
describe('console sessions are shared by every api process', () => {
  let databaseUrl: string;
  let fixtures: TestApp; // in-process: creates the firm and its endpoint (dashboard actions), and serves as api B
  let api: ServiceProcess;
  let firm: TestFirm;
  let endpointId: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    fixtures = await startTestApp({ databaseUrl, env: { ROLE: 'api' } });
    firm = await createFirm(fixtures.app);
    endpointId = (
      await fixtures.app
        .get(WebhookEndpointsService)
        .create({ orgId: firm.orgId, url: 'https://hooks.example.com/a', eventTypes: ['call.completed'] })
    ).endpoint.id;
    api = await startService('api', serviceEnv(databaseUrl));
  }, 90_000);

  afterAll(async () => {
    if (api) await stopService(api);
    await fixtures?.close();
  });

  it('a link opened through one process signs in on both; a button and "Sign out" through the other hold in both', async () => {
    const [a, b] = [api.baseUrl!, fixtures.baseUrl];
    const { token } = await mintLink(fixtures.app, firm.slug);

    const viaA = await openConsole(a, token);
    const again = await fetch(`${b}/console/sign-in/${token}`, { redirect: 'manual' });
    expect([again.status, again.headers.get('set-cookie')]).toEqual([410, null]);

    const headers = { cookie: viaA.cookie, accept: 'text/html' };
    const page = await fetch(`${b}/console/endpoints/${endpointId}`, { headers });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('https://hooks.example.com/a');
    const sent = await fetch(`${b}/console/endpoints/${endpointId}/test`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers, origin: b, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf_token=${viaA.csrf}`,
    });
    expect(sent.status).toBe(303);
    expect(await fixtures.sql(`SELECT trigger FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId])).toEqual([
      { trigger: 'test' },
    ]);

    const out = await fetch(`${b}/console/sign-out`, {
      method: 'POST',
      headers: { ...headers, origin: b, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf_token=${viaA.csrf}`,
    });
    expect(out.status).toBe(200);
    expect((await viaA.get('/console/endpoints')).status).toBe(401);
  });

  it('a read-only session is refused a change by every process, and `console revoke --all` signs sessions out of both', async () => {
    const [a, b] = [api.baseUrl!, fixtures.baseUrl];
    const full = await openConsole(a, (await mintLink(fixtures.app, firm.slug)).token);
    const looker = await openConsole(b, (await mintLink(fixtures.app, firm.slug, true, true)).token);
    const post = (base: string, csrf: string, cookie: string) =>
      fetch(`${base}/console/endpoints/${endpointId}/test`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, accept: 'text/html', origin: base, 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf_token=${csrf}`,
      });
    const before = await fixtures.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]);
    expect([(await post(a, looker.csrf, looker.cookie)).status, (await post(b, looker.csrf, looker.cookie)).status]).toEqual([403, 403]);
    expect(await fixtures.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId])).toEqual(before);

    const revoked = await runCli(['console', 'revoke', '--org', firm.slug, '--all', '--json'], { databaseUrl });
    expect(revoked.code).toBe(0);
    expect(revoked.json.revoked).toHaveLength(2);
    for (const [base, session] of [
      [a, looker],
      [b, full],
    ] as const) {
      const r = await fetch(`${base}/console/endpoints`, { headers: { cookie: session.cookie, accept: 'text/html' } });
      expect([r.status, (await r.text()).includes('<h1>Signed out</h1>')]).toEqual([401, true]);
    }
  });
});
