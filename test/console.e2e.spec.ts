import { createFirm, type TestFirm } from './support/factories';
import { mintLink, openConsole } from './support/console';
import { startTestApp, type TestApp } from './support/test-app';

describe('console smoke', () => {
  let t: TestApp;
  let firm: TestFirm;
  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'error' }, logStream: process.stderr });
    firm = await createFirm(t.app);
  });
  afterAll(() => t.close());

  it('signs in and shows the list', async () => {
    const { token } = await mintLink(t.app, firm.slug);
    const c = await openConsole(t.baseUrl, token);
    const page = await c.get('/console/endpoints');
    console.log(page.status, [...page.headers.entries()], (await page.text()).slice(0, 3000));
    const added = await c.post('/console/endpoints', {
      url: 'http://127.0.0.1:9/x',
      description: '<b>hi</b>',
      types: ['call.completed', 'lead.created'],
    });
    const html = await added.text();
    console.log(added.status, html.slice(0, 2000));
  });
});
