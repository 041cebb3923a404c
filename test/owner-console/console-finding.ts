import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { WebhookDeliveriesService } from '../../src/webhooks';
import { recordEvent } from '../support/events';
import { createFirm, type TestFirm } from '../support/factories';
import type { TestApp } from '../support/test-app';
import { type ConsoleOverHttp } from './console-context';

const shownIds = (html: string) =>
  [...html.matchAll(/<article class="delivery [a-z]+" id="delivery-[^"]+" data-delivery-id="([^"]+)"/g)].map((m) => m[1]);
const hrefOf = (html: string, text: string) => {
  const found = new RegExp(`<a rel="(?:prev|next)" href="([^"]+)">${text}</a>`).exec(html);
  return found ? found[1].replace(/&amp;/g, '&') : null;
};

/** The console over HTTP: finding a delivery (filters, pages either way), what was sent, times in the firm's zone, event types. */
export function finding(shared: ConsoleOverHttp): void {
  describe('finding a delivery and seeing what was sent', () => {
    let t: TestApp;
    const { endpointFor, signIn } = shared;
    beforeAll(() => {
      ({ t } = shared);
    });
    const record = (f: TestFirm, type: 'call.completed' | 'lead.created', i: number) =>
      t.app
        .get(Database)
        .transaction((tx) => recordEvent(t.app.get(EventsService), tx, { orgId: f.orgId, type, data: { call_id: `call_${i}` } }));
    const deliveries = (id: string) =>
      t.sql('SELECT id, status, event_type, event_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC', [
        id,
      ]);

    it('filters by status and event type (a form sets them; empty is any), and refuses unknown values with a plain 400 page', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f, { eventTypes: ['call.completed', 'lead.created'] });
      const c = await signIn(f);
      expect((await c.post(`/console/endpoints/${id}/disable`)).status).toBe(303);
      for (let i = 0; i < 3; i++) await record(f, 'lead.created', i);
      expect((await c.post(`/console/endpoints/${id}/enable`)).status).toBe(303);
      for (let i = 0; i < 4; i++) await record(f, 'call.completed', i);
      const all = await deliveries(id);
      const page = await (await c.get(`/console/endpoints/${id}`)).text();
      expect(page).toContain('<select name="status">');
      expect(page).toContain('<select name="event_type">');
      expect(page).toContain('<button type="submit">Filter</button>');
      const failed = await (await c.get(`/console/endpoints/${id}?status=failed&event_type=`)).text();
      expect(shownIds(failed)).toEqual(all.filter((d) => d.status === 'failed').map((d) => d.id));
      expect(failed).toContain('<option value="failed" selected>failed</option>');
      const calls = await (await c.get(`/console/endpoints/${id}?status=&event_type=call.completed`)).text();
      expect(shownIds(calls)).toEqual(all.filter((d) => d.event_type === 'call.completed').map((d) => d.id));
      expect(shownIds(await (await c.get(`/console/endpoints/${id}?status=succeeded`)).text())).toEqual([]);
      for (const query of ['status=delivered', 'event_type=lead.deleted', 'status=FAILED', 'colour=red']) {
        const r = await c.get(`/console/endpoints/${id}?${query}`);
        const text = await r.text();
        expect([query, r.status, r.headers.get('content-type')]).toEqual([query, 400, 'text/html; charset=utf-8']);
        expect(text).toContain(`<a class="back" href="/console/endpoints/${id}">Back to the endpoint</a>`);
      }
      expect(await (await c.get(`/console/endpoints/${id}?status=delivered`)).text()).toContain(
        'status must be one of pending, succeeded, failed',
      );
    });

    it('pages 20 at a time with "Older" and back with "Newer", the filter kept', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f);
      for (let i = 0; i < 45; i++) await record(f, 'call.completed', i);
      const all = (await deliveries(id)).map((d) => d.id);
      const c = await signIn(f);
      const first = await (await c.get(`/console/endpoints/${id}?status=pending`)).text();
      expect([shownIds(first), hrefOf(first, 'Newer')]).toEqual([all.slice(0, 20), null]);
      const second = await (await c.get(hrefOf(first, 'Older')!)).text();
      expect(hrefOf(first, 'Older')).toMatch(/[?&]status=pending(&|$)/);
      expect(shownIds(second)).toEqual(all.slice(20, 40));
      const third = await (await c.get(hrefOf(second, 'Older')!)).text();
      expect([shownIds(third), hrefOf(third, 'Older')]).toEqual([all.slice(40), null]);
      const back = await (await c.get(hrefOf(third, 'Newer')!)).text();
      expect(shownIds(back)).toEqual(all.slice(20, 40));
      const top = await (await c.get(hrefOf(back, 'Newer')!)).text();
      expect([shownIds(top), hrefOf(top, 'Newer')]).toEqual([all.slice(0, 20), null]);
    });

    it('each delivery has a <details> "Payload": the event as it is signed and sent, its webhook-id; times in the firm’s zone', async () => {
      const f = await createFirm(t.app, { timezone: 'America/Chicago' });
      const id = await endpointFor(f);
      const event = await record(f, 'call.completed', 1);
      const c = await signIn(f);
      const html = await (await c.get(`/console/endpoints/${id}`)).text();
      const body = JSON.stringify((await t.get(`/v1/events/${event.envelope.id}`, { key: f.keys.read })).body);
      const escaped = body.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      expect(html).toContain('<details class="payload">\n      <summary>Payload</summary>');
      expect(html).toContain(`<pre class="payload-body">${escaped}</pre>`);
      expect(html).toContain(`<dt>webhook-id</dt><dd class="mono webhook-id">${event.envelope.id}</dd>`);
      expect(html).toContain('not sent yet');
      // The firm's zone and its abbreviation: the delivery's creation, the header's session end, the chart's zone.
      const local = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Chicago', timeZoneName: 'short' })
        .formatToParts(new Date(event.envelope.timestamp))
        .find((p) => p.type === 'timeZoneName')!.value;
      expect(html).toMatch(new RegExp(`created \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d ${local}`));
      expect(html).toMatch(/Session ends \d{4}-\d\d-\d\d \d\d:\d\d:\d\d C[DS]T/);
      expect(html).not.toContain(' UTC');
      const chart = (await (await c.get(`/console/endpoints/${id}/deliveries-per-hour`, { accept: 'application/json' })).json()) as any;
      expect([chart.timezone, chart.zone]).toEqual(['America/Chicago', expect.stringMatching(/^C[DS]T$/)]);
    });

    it('a failed delivery whose event was resent says so and links to the redelivery with its outcome', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f);
      const c = await signIn(f);
      expect((await c.post(`/console/endpoints/${id}/disable`)).status).toBe(303);
      await record(f, 'call.completed', 1);
      expect((await c.post(`/console/endpoints/${id}/enable`)).status).toBe(303);
      const [missed] = await deliveries(id);
      expect((await c.post(`/console/endpoints/${id}/deliveries/${missed.id}/resend`)).status).toBe(303);
      const [redelivery] = await t.sql(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND trigger = 'redelivery'`, [id]);
      const page = await (await c.get(`/console/endpoints/${id}`)).text();
      const card = page.slice(page.indexOf(`data-delivery-id="${missed.id}"`));
      expect(card).toMatch(
        new RegExp(
          `Its event was resent since:\\s*<a href="/console/endpoints/${id}/deliveries/${redelivery.id}" data-redelivery-id="${redelivery.id}">the redelivery of [^<]+</a>, <span class="status pending">pending</span>`,
        ),
      );
      // The redelivery's own page; another endpoint's delivery is not found there.
      const own = await c.get(`/console/endpoints/${id}/deliveries/${redelivery.id}`);
      expect([own.status, (await own.text()).includes(`data-delivery-id="${redelivery.id}"`)]).toEqual([200, true]);
      const other = await endpointFor(f);
      expect((await c.get(`/console/endpoints/${other}/deliveries/${redelivery.id}`)).status).toBe(404);
      // The API's view of the same: the original is untouched.
      const api = await t.app.get(WebhookDeliveriesService).list({ orgId: f.orgId, livemode: true }, { endpoint_id: id });
      expect(api.deliveries.map((d) => [d.trigger, d.status])).toEqual([
        ['redelivery', 'pending'],
        ['event', 'failed'],
      ]);
    });

    it('"Event types" (in every page’s header) lists each subscribable type with its data members, as the served document has them, and an example', async () => {
      const f = await createFirm(t.app);
      const c = await signIn(f);
      const list = await (await c.get('/console/endpoints')).text();
      expect(list).toContain('<a href="/console/event-types">Event types</a>');
      const r = await c.get('/console/event-types');
      const html = await r.text();
      expect(r.status).toBe(200);
      const doc = (await t.get('/v1/openapi.json')).body;
      for (const [type, schema] of [
        ['call.completed', 'CallCompletedData'],
        ['lead.created', 'LeadCreatedData'],
        ['lead.updated', 'LeadUpdatedData'],
      ]) {
        const section = html.slice(html.indexOf(`<section class="event-type" id="${type}">`)).split('</section>')[0];
        const members = [...section.matchAll(/<tr><td class="mono">([^<.]+)<\/td>/g)].map((m) => m[1]);
        expect([type, members]).toEqual([type, Object.keys(doc.components.schemas[schema].properties)]);
        expect(section).toContain(`&quot;type&quot;: &quot;${type}&quot;`);
      }
      expect(html).not.toContain('id="webhook.test"');
    });
  });
}
