import { copyFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../src/events';
import { AccountService } from '../../src/account';
import { WebhookEndpointsService } from '../../src/webhooks';
import { BROWSER_OUTPUT, launchChromium, haveChromium } from '../support/browser';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { recordEvent } from '../support/events';
import { runCli } from '../support/cli';
import { linkToken, mintLink } from '../support/console';
import { createFirm, type TestFirm } from '../support/factories';
import { freePort } from '../support/net';
import { behaviours, Receiver, waitFor } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';

const OUTPUT = BROWSER_OUTPUT;

/**
 * A receiver's answer that would run script if the console did not escape it, with a right-to-left override that
 * would flip what follows it if the console printed it raw (it shows it as <U+202E>).
 */
const HOSTILE_ANSWER = '<img src=x onerror="document.title=\'pwned\'"> upstream said \u202Eon\u202C';
const HOSTILE_ANSWER_SHOWN = '<img src=x onerror="document.title=\'pwned\'"> upstream said <U+202E>on<U+202C>';

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
  const shownDeliveries = (on = page) =>
    on.locator('article.delivery').evaluateAll((articles) =>
      articles.map((a) => ({
        id: a.getAttribute('data-delivery-id'),
        eventId: a.getAttribute('data-event-id'),
        status: a.querySelector('.status')?.textContent,
        trigger: a.querySelector('.trigger')?.textContent,
      })),
    );
  const reloadUntil = async (check: () => Promise<boolean>, what: string, on = page) =>
    waitFor(
      async () => {
        await on.reload();
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
    await expect(page.locator('pre.answer').first().innerText()).resolves.toBe(HOSTILE_ANSWER_SHOWN);
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
    if (process.env.CONSOLE_SCREENSHOT_DIR)
      copyFileSync(join(OUTPUT, 'console-endpoint.png'), join(process.env.CONSOLE_SCREENSHOT_DIR, 'console-endpoint.png'));
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

  /** What the console's script threw in the browsers of the cases below (each case's own browser). */
  const scriptErrors: string[] = [];
  /** A browser of its own, signed in through a link minted as the CLI does (`readOnly` as --read-only). */
  const signedIn = async (f: TestFirm, readOnly = false) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await context.newPage();
    p.on('pageerror', (e) => scriptErrors.push(e.message));
    p.on('dialog', (d) => void d.accept());
    const { url } = await mintLink(t.app, f.slug, true, readOnly);
    await p.goto(url);
    return p;
  };
  const endpointFor = async (f: TestFirm, path: string, eventTypes = ['call.completed']) =>
    (await t.app.get(WebhookEndpointsService).create({ orgId: f.orgId, url: rx.url(path), eventTypes })).endpoint.id;
  const screenshot = async (p: Page, name: string) => {
    mkdirSync(OUTPUT, { recursive: true });
    await p.screenshot({ path: join(OUTPUT, name), fullPage: true });
    if (process.env.CONSOLE_SCREENSHOT_DIR) copyFileSync(join(OUTPUT, name), join(process.env.CONSOLE_SCREENSHOT_DIR, name));
  };

  it('edits an endpoint’s types and the next event follows them; its payload is byte for byte what the receiver got', async () => {
    // A firm of its own: its call reaches only this endpoint (the first case's counts what its endpoint receives).
    const f = await createFirm(t.app);
    await t.app.get(AccountService).updateOrg(f.orgId, { name: 'Hartley & Finch LLP' });
    rx.on('/edit', behaviours.status(200, 'ok'));
    const id = await endpointFor(f, '/edit');
    const p = await signedIn(f);
    await p.goto(`${t.baseUrl}/console/endpoints/${id}`);
    await p.getByRole('button', { name: 'Edit endpoint' }).click();
    await p.waitForURL(`${t.baseUrl}/console/endpoints/${id}/edit?`);
    await p.getByLabel('Description').fill('Intake CRM');
    await p.getByRole('checkbox', { name: 'call.completed' }).uncheck();
    await p.getByRole('checkbox', { name: 'lead.created' }).check();
    await screenshot(p, 'console-edit.png');
    await p.getByLabel('Description').fill('Intake \u202E CRM');
    await p.getByRole('button', { name: 'Save' }).click();
    await p.waitForURL(/\?done=updated$/);
    await expect(p.locator('dd.event-types').innerText()).resolves.toBe('lead.created');
    // The owner's own label is shown with its right-to-left override made visible.
    await expect(p.locator('dd.description').innerText()).resolves.toBe('Intake <U+202E> CRM');

    // A call with a lead makes call.completed and lead.created: only lead.created reaches the endpoint now.
    const callId = nextCallId();
    await ingestOk(t, f.orgId, callId, fullCallDocument());
    const got = await waitFor(() => rx.at('/edit')[0], 'the lead.created delivery', 30_000);
    const sent = JSON.parse(got.body);
    expect([sent.type, sent.data.call_id]).toEqual(['lead.created', callId]);
    await reloadUntil(async () => (await shownDeliveries(p)).some((d) => d.status === 'succeeded'), 'the delivery shown as succeeded', p);
    expect((await shownDeliveries(p)).map((d) => d.eventId)).toEqual([got.headers['webhook-id']]);

    // Its payload: the exact bytes the receiver got, with the request's webhook-id and webhook-timestamp.
    const card = p.locator(`article.delivery[data-event-id="${got.headers['webhook-id']}"]`);
    await card.locator('details.payload summary', { hasText: 'Payload' }).click();
    await expect(card.locator('details.payload pre.payload-body').isVisible()).resolves.toBe(true);
    expect(await card.locator('pre.payload-body').textContent()).toBe(got.body);
    expect(await card.locator('.webhook-id').textContent()).toBe(got.headers['webhook-id']);
    expect(await card.locator('.webhook-timestamp').first().textContent()).toBe(got.headers['webhook-timestamp']);
    expect(rx.at('/edit')).toHaveLength(1);
    await screenshot(p, 'console-payload.png');

    // The chart's axis names the firm's zone, and its legend shows the hovered hour's counts.
    await p.locator('#deliveries-chart[data-drawn="last_24_hours"] canvas').first().waitFor({ timeout: 15_000 });
    const box = (await p.locator('#deliveries-chart .u-over').boundingBox())!;
    await p.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
    const legend = await p
      .locator('#deliveries-chart .u-legend .u-series')
      .evaluateAll((rows) =>
        rows.map((r) => [r.querySelector('.u-label')?.textContent ?? '', r.querySelector('.u-value')?.textContent ?? '']),
      );
    expect(legend[0][0]).toMatch(/^Hour \(C[DS]T\)$/);
    expect(legend[0][1]).toMatch(/^\d{4}-\d\d-\d\d \d\d:00 C[DS]T$/);
    expect(Object.fromEntries(legend.slice(1))).toEqual({ succeeded: '1', failed: '0', pending: '0' });
    expect(scriptErrors).toEqual([]);
    await p.context().close();
  }, 120_000);

  it('filters failed deliveries, and pages forward and back', async () => {
    const f = await createFirm(t.app);
    rx.on('/many', behaviours.status(200, 'ok'));
    const endpoints = t.app.get(WebhookEndpointsService);
    const id = await endpointFor(f, '/many');
    const record = () =>
      t.app
        .get(Database)
        .transaction((tx) =>
          recordEvent(t.app.get(EventsService), tx, { orgId: f.orgId, type: 'call.completed', data: { call_id: 'call_p' } }),
        );
    // Three events while the endpoint is off (failed: nothing sent), then 22 delivered.
    await endpoints.disable(id);
    for (let i = 0; i < 3; i++) await record();
    await endpoints.enable(id);
    for (let i = 0; i < 22; i++) await record();
    await waitFor(() => rx.at('/many').length === 22, 'the 22 deliveries', 30_000);
    const all = await t.sql('SELECT id, status FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC', [id]);
    const p = await signedIn(f);
    await p.goto(`${t.baseUrl}/console/endpoints/${id}`);

    await p.getByLabel('Status').selectOption('failed');
    await p.getByRole('button', { name: 'Filter' }).click();
    await p.waitForURL(/status=failed/);
    const failed = await shownDeliveries(p);
    expect(failed.map((d) => d.id)).toEqual(all.filter((d) => d.status === 'failed').map((d) => d.id));
    expect(failed.every((d) => d.status === 'failed')).toBe(true);

    await p.getByRole('link', { name: 'Show all' }).click();
    await p.waitForURL(`${t.baseUrl}/console/endpoints/${id}`);
    const first = (await shownDeliveries(p)).map((d) => d.id);
    expect(first).toEqual(all.slice(0, 20).map((d) => d.id));
    expect(await p.getByRole('link', { name: 'Newer' }).count()).toBe(0);
    await p.getByRole('link', { name: 'Older' }).click();
    await p.waitForURL(/cursor=/);
    expect((await shownDeliveries(p)).map((d) => d.id)).toEqual(all.slice(20).map((d) => d.id));
    expect(await p.getByRole('link', { name: 'Older' }).count()).toBe(0);
    await p.getByRole('link', { name: 'Newer' }).click();
    await p.waitForURL(/newer=/);
    expect((await shownDeliveries(p)).map((d) => d.id)).toEqual(first);
    await p.context().close();
  }, 120_000);

  it('a read-only session (console link --read-only) sees no button, and a replayed POST in it gets 403', async () => {
    // The firm of the first case, whose endpoint has deliveries to show (a read-only session changes nothing of it).
    const f = firm;
    const id = endpointId;
    const full = await signedIn(f);
    await full.goto(`${t.baseUrl}/console/endpoints/${id}`);
    const action = await full.locator('form[action$="/test"]').getAttribute('action');
    const token = await full.locator('form[action$="/test"] input[name="csrf_token"]').inputValue();

    const minted = await runCli(['console', 'link', '--org', f.slug, '--read-only', '--json'], {
      databaseUrl: t.databaseUrl,
      env: { BASE_URL: t.baseUrl },
    });
    expect(minted.code).toBe(0);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await context.newPage();
    await p.goto((linkToken(minted.json.url), minted.json.url));
    await p.goto(`${t.baseUrl}/console/endpoints/${id}`);
    await expect(p.locator('.top .read-only').innerText()).resolves.toBe('Read-only');
    for (const name of ['Edit endpoint', 'Send test', 'Disable', 'Enable', 'Rotate secret', 'Delete', 'Resend', 'Add endpoint', 'Save']) {
      expect([name, await p.getByRole('button', { name, exact: true }).count()]).toEqual([name, 0]);
    }
    await screenshot(p, 'console-read-only.png');

    // The full session's "Send test" form, token and all, posted from the read-only session's page: 403, nothing sent.
    const deliveriesBefore = (await t.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [id]))[0].n;
    const receivedBefore = rx.at('/hook').length;
    const [replayed] = await Promise.all([
      p.waitForResponse((r) => r.url().endsWith('/test') && r.request().method() === 'POST'),
      // The page's own form submission (the browser sends Origin and the read-only session's cookie).
      p.evaluate(`(() => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = ${JSON.stringify(action)};
        form.append(Object.assign(document.createElement('input'), { type: 'hidden', name: 'csrf_token', value: ${JSON.stringify(token)} }));
        document.body.append(form);
        form.submit();
      })()`),
    ]);
    expect(replayed.status()).toBe(403);
    expect(await replayed.request().headerValue('origin')).toBe(t.baseUrl);
    await expect(p.locator('main').innerText()).resolves.toContain('This console session is read-only');
    expect((await t.sql('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [id]))[0].n).toBe(deliveriesBefore);
    expect(rx.at('/hook')).toHaveLength(receivedBefore);
    await context.close();
    await full.context().close();
  }, 120_000);

  it('`console revoke --all` signs a browser out; "Event types" is linked from the header', async () => {
    const f = await createFirm(t.app);
    const p = await signedIn(f);
    await p.getByRole('link', { name: 'Event types' }).click();
    await p.waitForURL(`${t.baseUrl}/console/event-types`);
    await expect(p.locator('section.event-type h2').allInnerTexts()).resolves.toEqual([...SUBSCRIBABLE_EVENT_TYPES]);
    await screenshot(p, 'console-event-types.png');
    const revoked = await runCli(['console', 'revoke', '--org', f.slug, '--all', '--json'], { databaseUrl: t.databaseUrl });
    expect([revoked.code, revoked.json.revoked.length]).toEqual([0, 1]);
    const again = await p.reload();
    expect(again!.status()).toBe(401);
    await expect(p.locator('h1').innerText()).resolves.toBe('Signed out');
    expect(scriptErrors).toEqual([]);
    await p.context().close();
  }, 120_000);
});
