import { WebhookEndpointsService } from '../src/webhooks';
import { runCli } from './support/cli';
import { linkToken, openConsole } from './support/console';
import { createTestDatabase } from './support/database';
import { createFirm, type TestFirm } from './support/factories';
import { serviceEnv, startService, stopService, type ServiceProcess } from './support/processes';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * The console served by two compiled api processes on one database, as in the multi-process setup: a session
 * opened through one is the session of the other, and ends in both at once.
 */
describe('console sessions are shared by every api process', () => {
  let databaseUrl: string;
  let fixtures: TestApp; // in-process, only to create the firm and its endpoint (dashboard actions)
  const apis: ServiceProcess[] = [];
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
    apis.push(...(await Promise.all([startService('api', serviceEnv(databaseUrl)), startService('api', serviceEnv(databaseUrl))])));
  }, 90_000);

  afterAll(async () => {
    await Promise.all(apis.map((p) => stopService(p)));
    await fixtures?.close();
  });

  it('a link opened through one process signs in on both; a button and "Sign out" through the other hold in both', async () => {
    const [a, b] = apis.map((p) => p.baseUrl!);
    const minted = await runCli(['console', 'link', '--org', firm.slug, '--json'], { databaseUrl, env: { BASE_URL: a } });
    expect(minted.code).toBe(0);
    const token = linkToken(minted.json.url);
    expect(minted.json.url).toBe(`${a}/console/sign-in/${token}`);

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
});
