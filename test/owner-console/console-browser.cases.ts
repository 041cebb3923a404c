import { copyFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { AccountService } from '../../src/account';
import { WebhookEndpointsService } from '../../src/webhooks';
import { BROWSER_OUTPUT, launchChromium, haveChromium } from '../support/browser';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { runCli } from '../support/cli';
import { linkToken } from '../support/console';
import { createFirm, type TestFirm } from '../support/factories';
import { freePort } from '../support/net';
import { behaviours, Receiver, waitFor } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';

const OUTPUT = BROWSER_OUTPUT;

/** A receiver's answer that would run script if the console did not escape it. */
const HOSTILE_ANSWER = '<img src=x onerror="document.title=\'pwned\'"> upstream said no';

/**
 * The endpoint owner's console driven in Debian's Chromium, as its owner would use it: a link from the dashboard
 * (the CLI), a failing endpoint, "Resend" and "Send test", the link refused a second time, another firm's endpoint
 * answering 404, and a cross-origin replay of "Resend" refused with nothing sent.
 */
(haveChromium('console browser test') ? describe : describe.skip)('the console in a real browser', () => {
  let t: TestApp;
  let rx: Receiver;
  let firm: TestFirm;
  let other: TestFirm;
  let endpointId: string;
  let otherEndpointId: string;
  let eventId: string;
  let browser: Browser;
  let page: Page;
  let attacker: Server;
  let attackerOrigin = '';
  let attackerPage = '';
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    rx = await Receiver.start();
    rx.on('/hook', behaviours.status(500, HOSTILE_ANSWER));
    const port = await freePort();
    // BASE_URL is the app's own address, as an operator sets it: the link the CLI prints opens the console.
    t = await startTestApp({
      env: {
        ...internalEnv,
        PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1s',
      },
    });
    firm = await createFirm(t.app);
    // A firm's name as an owner sees it (the README's screenshot comes from this page).
    await t.app.get(AccountService).updateOrg(firm.orgId, { name: 'Hartley & Finch LLP' });
    other = await createFirm(t.app);
    const endpoints = t.app.get(WebhookEndpointsService);
    endpointId = (
      await endpoints.create({
        orgId: firm.orgId,
        url: rx.url('/hook'),
        eventTypes: ['call.completed'],
        description: 'Case management sync <Clio>',
      })
    ).endpoint.id;
    otherEndpointId = (await endpoints.create({ orgId: other.orgId, url: rx.url('/other'), eventTypes: ['call.completed'] })).endpoint.id;
    await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument());
    // Two attempts (WEBHOOK_RETRY_SCHEDULE 1s), both answered 500: the delivery fails and the endpoint is failing.
    const failed = await waitFor(
      async () => (await t.sql(`SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'failed'`, [endpointId]))[0],
      'the first delivery to fail',
      30_000,
    );
    eventId = failed.event_id;

    attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(attackerPage);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error' && new URL(page.url()).origin === t.baseUrl) consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('dialog', (d) => void d.accept());
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await t?.close();
    await rx?.close();
  });

  /** The delivery articles of the endpoint page, as shown. */
  const shownDeliveries = () =>
    page.locator('article.delivery').evaluateAll((articles) =>
      articles.map((a) => ({
        id: a.getAttribute('data-delivery-id'),
        eventId: a.getAttribute('data-event-id'),
        status: a.querySelector('.status')?.textContent,
        trigger: a.querySelector('.trigger')?.textContent,
      })),
    );
  const reloadUntil = async (check: () => Promise<boolean>, what: string) =>
    waitFor(
      async () => {
        await page.reload();
        return check();
      },
      what,
      30_000,
    );

  it('enters through the CLI link, resends the failed delivery, sends a test, and refuses what it must', async () => {
    const minted = await runCli(['console', 'link', '--org', firm.slug, '--json'], {
      databaseUrl: t.databaseUrl,
      env: { BASE_URL: t.baseUrl },
    });
    expect(minted.code).toBe(0);
    const link: { url: string; expires_at: string } = minted.json;
    linkToken(link.url);
    expect(Object.keys(link)).toEqual(['url', 'expires_at']);

    // Enter: signed in, on the endpoint list, at an address without the token.
    await page.goto(link.url);
    expect(page.url()).toBe(`${t.baseUrl}/console/endpoints`);
    const row = page.locator('tr', { has: page.locator(`a[href$="${endpointId}"]`) });
    await expect(row.locator('.badge.failing').innerText()).resolves.toBe('Failing');
    await expect(row.innerText()).resolves.toContain('Case management sync <Clio>');

    // The endpoint page: marked failing, the receiver's answer shown as text.
    await row.locator('a').click();
    await page.waitForURL(`${t.baseUrl}/console/endpoints/${endpointId}`);
    await expect(page.locator('.alert.failing').innerText()).resolves.toMatch(/^Failing since /);
    await expect(page.locator('pre.answer').first().innerText()).resolves.toBe(HOSTILE_ANSWER);
    expect(await page.title()).not.toBe('pwned');
    const failedRow = page.locator(`article.delivery.failed[data-event-id="${eventId}"]`);
    const before = rx.at('/hook').length;

    // "Resend": the receiver gets the same event (same webhook-id) and the console shows it succeeded.
    rx.on('/hook', behaviours.status(200, 'ok'));
    await failedRow.getByRole('button', { name: 'Resend' }).click();
    await page.waitForURL(/\?done=resent$/);
    await reloadUntil(
      async () => (await shownDeliveries()).some((d) => d.trigger === 'redelivery' && d.eventId === eventId && d.status === 'succeeded'),
      'the resent delivery shown as succeeded',
    );
    expect(
      rx
        .at('/hook')
        .slice(before)
        .map((r) => r.headers['webhook-id']),
    ).toEqual([eventId]);

    // "Send test": a webhook.test delivery reaches the receiver.
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.waitForURL(/\?done=test-sent$/);
    await reloadUntil(
      async () => (await shownDeliveries()).some((d) => d.trigger === 'test' && d.status === 'succeeded'),
      'the test delivery shown as succeeded',
    );
    expect(rx.at('/hook').some((r) => JSON.parse(r.body).type === 'webhook.test')).toBe(true);

    // The chart, drawn from the console's own JSON.
    await page.locator('#deliveries-chart[data-drawn="last_24_hours"] canvas').first().waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Last 7 days' }).click();
    await page.locator('#deliveries-chart[data-drawn="last_7_days"] canvas').first().waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Last 24 hours' }).click();
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'console-endpoint.png'), fullPage: true });
    if (process.env.CONSOLE_SCREENSHOT) copyFileSync(join(OUTPUT, 'console-endpoint.png'), process.env.CONSOLE_SCREENSHOT);
    expect(consoleErrors).toEqual([]);

    // The link a second time: a plain page saying so, 4xx, and no cookie set.
    const again = await page.goto(link.url);
    expect(again!.status()).toBe(410);
    expect(await again!.headerValue('set-cookie')).toBeNull();
    await expect(page.locator('h1').innerText()).resolves.toBe('This console link was already used');

    // Another firm's endpoint: 404, exactly like an unknown id.
    const foreign = await page.goto(`${t.baseUrl}/console/endpoints/${otherEndpointId}`);
    const foreignText = (await page.locator('main').innerText()).replace(otherEndpointId, '<id>');
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const unknown = await page.goto(`${t.baseUrl}/console/endpoints/${unknownId}`);
    expect([foreign!.status(), unknown!.status()]).toEqual([404, 404]);
    expect(foreignText).toBe((await page.locator('main').innerText()).replace(unknownId, '<id>'));

    // A cross-origin replay of "Resend" (the very form, CSRF token included, from another origin): 403, nothing sent.
    await page.goto(`${t.baseUrl}/console/endpoints/${endpointId}`);
    const token = await page.locator('input[name="csrf_token"]').first().inputValue();
    const failedId = await failedRow.getAttribute('data-delivery-id');
    const deliveriesBefore = (await t.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]))[0].n;
    const receivedBefore = rx.received.length;
    attackerPage = `<!doctype html><form method="post" action="${t.baseUrl}/console/endpoints/${endpointId}/deliveries/${failedId}/resend">
      <input type="hidden" name="csrf_token" value="${token}"></form><script>document.forms[0].submit()</script>`;
    const [replayed] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/resend') && r.request().method() === 'POST'),
      page.goto(attackerOrigin),
    ]);
    expect(replayed.status()).toBe(403);
    expect(await replayed.request().headerValue('origin')).toBe(attackerOrigin);
    // Nothing was created (a resend's delivery row is written before its answer), so nothing can be sent.
    expect((await t.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]))[0].n).toBe(
      deliveriesBefore,
    );
    expect(rx.received.length).toBe(receivedBefore);
  }, 180_000);
});
