import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { recordEvent } from '../support/events';
import { createFirm, type TestFirm } from '../support/factories';
import type { TestApp } from '../support/test-app';
import { type ConsoleOverHttp } from './console-context';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** The console over HTTP: the pages, the firm and mode boundary, and the chart. */
export function seeing(shared: ConsoleOverHttp): void {
  describe('seeing', () => {
    let t: TestApp;
    let firm: TestFirm;
    let other: TestFirm;
    const { endpointFor, signIn, deliveriesOf } = shared;
    beforeAll(() => {
      ({ t, firm, other } = shared);
    });

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

    it('an endpoint’s page shows how it signs: v1 with its secret’s last 4, v1a with its public key; rotating v1a shows the new key', async () => {
      const f = await createFirm(t.app);
      const hmac = await endpointFor(f);
      const { endpoint, publicKey } = await shared.endpoints.create({
        orgId: f.orgId,
        url: 'https://hooks.example.com/v1a',
        eventTypes: ['call.completed'],
        signature: 'v1a',
      });
      const c = await signIn(f);
      const v1 = await (await c.get(`/console/endpoints/${hmac}`)).text();
      expect(v1).toContain('v1 (HMAC-SHA256)');
      expect(v1).toMatch(/Signing secret<\/dt><dd class="mono">whsec_…/);
      const v1a = await (await c.get(`/console/endpoints/${endpoint.id}`)).text();
      expect(v1a).toContain('v1a (ed25519)');
      expect(v1a).toContain(`<dd class="mono public-key">${publicKey}</dd>`);
      expect(v1a).not.toContain('whsec_');
      const rotated = await (await c.post(`/console/endpoints/${endpoint.id}/rotate-secret`)).text();
      const newKey = /<code id="public-key">(whpk_[A-Za-z0-9+/=]+)<\/code>/.exec(rotated)![1];
      expect(newKey).not.toBe(publicKey);
      expect(rotated).not.toMatch(/whsec_|whsk_|undefined/);
      expect(rotated).toContain('signed with both the old and the new key');
      expect(await (await c.get(`/console/endpoints/${endpoint.id}`)).text()).toContain(newKey);
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
}
