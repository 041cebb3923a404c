import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page, type Response } from 'playwright-core';
import { BROWSER_OUTPUT, launchChromium, haveChromium } from '../support/browser';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { checkExchange } from '../support/conformance';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

const OUTPUT = BROWSER_OUTPUT;

(haveChromium('Swagger UI browser test') ? describe : describe.skip)('Swagger UI in a real browser', () => {
  let t: TestApp;
  let firm: TestFirm;
  let leadId: string;
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  /** Each API answer the browser got, checked against the served document like request() checks its own: a mismatch's message. */
  const conformance: Promise<string | undefined>[] = [];
  const checkBrowserAnswer = async (res: Response): Promise<string | undefined> => {
    try {
      const headers = new Headers(await res.allHeaders());
      const text = await res.text();
      const body = /json/.test(headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
      await checkExchange(t.baseUrl, res.request().method(), res.url(), { status: res.status(), headers, body, text });
      return undefined;
    } catch (e) {
      return `${res.request().method()} ${res.url()}: ${(e as Error).message}`;
    }
  };

  beforeAll(async () => {
    // BASE_URL unset, as on a fresh clone: the document's server must be relative for the page to work from 127.0.0.1.
    t = await sharedTestApp({ ...internalEnv, BASE_URL: '' });
    firm = await createFirm(t.app);
    leadId = (await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('response', (res) => {
      const url = new URL(res.url());
      if (url.origin === new URL(t.baseUrl).origin && url.pathname.startsWith('/v1/')) conformance.push(checkBrowserAnswer(res));
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** The operation block for METHOD PATH, found by its path (not by operationId, which the document may rename). */
  const operation = (method: string, path: string) =>
    page.locator(`.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });

  const tryItOut = async (method: string, path: string, fill: (op: ReturnType<typeof operation>) => Promise<void>) => {
    const op = operation(method, path);
    await op.locator('.opblock-summary').first().click();
    await op.locator('button.try-out__btn').click();
    await fill(op);
    await op.locator('button.execute').click();
    const live = op.locator('.live-responses-table .response');
    await live.first().waitFor({ timeout: 15_000 });
    return {
      status: (await live.locator('.response-col_status').first().innerText()).trim(),
      body: await op.locator('.live-responses-table .response-col_description pre').first().innerText(),
    };
  };

  it('renders the introduction as sections: each heading of the document is a heading on the page', async () => {
    await page.goto(`${t.baseUrl}/docs`);
    const intro = page.locator('.information-container .info__description');
    await intro.locator('h3').first().waitFor({ timeout: 15_000 });
    // Each `### ` line of info.description, as the browser shows it: an h3 (not a paragraph starting with ###).
    const served = (await t.get<{ info: { description: string } }>('/v1/openapi.json')).body;
    const written = [...served.info.description.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(written).toEqual(
      expect.arrayContaining(['Authentication', 'Test mode', 'Errors', 'Paging and sync', 'Rate limits', 'Webhooks']),
    );
    expect(await intro.locator('h3').allInnerTexts()).toEqual(written);
    expect(await intro.getByText('###').count()).toBe(0);
    // Paragraphs, not one block: the lead and at least one per section.
    expect(await intro.locator('p').count()).toBeGreaterThan(written.length);
    mkdirSync(OUTPUT, { recursive: true });
    await page.locator('.information-container').screenshot({ path: join(OUTPUT, 'swagger-ui-introduction.png') });
    if (process.env.SWAGGER_UI_SCREENSHOT) copyFileSync(join(OUTPUT, 'swagger-ui-introduction.png'), process.env.SWAGGER_UI_SCREENSHOT);
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it('authorizes with a real key, then "Try it out" on GET /v1/calls and PATCH /v1/leads/{lead_id} answers for real', async () => {
    expect(t.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:/);
    await page.goto(`${t.baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });

    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input').first().fill(firm.keys['read-update-leads']);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    const calls = await tryItOut('get', '/v1/calls', async () => undefined);
    expect(calls.status).toBe('200');
    const listed = JSON.parse(calls.body);
    expect(listed.calls.length).toBeGreaterThanOrEqual(1);
    expect(listed.calls.some((c: { lead_id: string | null }) => c.lead_id === leadId)).toBe(true);

    const patched = await tryItOut('patch', '/v1/leads/{lead_id}', async (op) => {
      await op.locator('tr[data-param-name="lead_id"] input').fill(leadId);
      await op.locator('textarea.body-param__text').fill(JSON.stringify({ status: 'contacted' }));
    });
    expect(patched.status).toBe('200');
    expect(JSON.parse(patched.body).lead).toMatchObject({ lead_id: leadId, status: 'contacted' });
    const stored = await t.sql('SELECT status FROM leads WHERE lead_id = $1', [leadId]);
    expect(stored[0].status).toBe('contacted');

    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'swagger-ui.png'), fullPage: true });
    await operation('patch', '/v1/leads/{lead_id}').screenshot({ path: join(OUTPUT, 'swagger-ui-patch-lead.png') });
    expect(consoleErrors).toEqual([]);
    expect(conformance.length).toBeGreaterThanOrEqual(2);
    expect((await Promise.all(conformance)).filter(Boolean)).toEqual([]);
  }, 90_000);
});
