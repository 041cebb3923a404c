import { SUBSCRIBABLE_EVENT_TYPES } from '../../src/events';
import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { csrfOf } from '../support/console';
import { recordEvent } from '../support/events';
import { createFirm } from '../support/factories';
import type { TestApp } from '../support/test-app';
import { type ConsoleOverHttp } from './console-context';

/** The console over HTTP: "Edit endpoint" and "Save", a GET on a button's address, and pages a person can live with. */
export function editing(shared: ConsoleOverHttp): void {
  describe('editing, and pages a person can live with', () => {
    let t: TestApp;
    const { endpointFor, signIn, auditOf, deliveriesOf } = shared;
    beforeAll(() => {
      ({ t } = shared);
    });
    const row = async (id: string) => (await t.sql('SELECT url, description, event_types FROM webhook_endpoints WHERE id = $1', [id]))[0];

    it('"Edit endpoint" opens a form (description, the type checkboxes) saved with "Save"; the change is the CLI’s, audited with the session', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f, { description: 'CRM <sync>' });
      const c = await signIn(f);
      const page = await (await c.get(`/console/endpoints/${id}`)).text();
      expect(page).toContain(
        `<form method="get" action="/console/endpoints/${id}/edit"><button type="submit">Edit endpoint</button></form>`,
      );
      const form = await (await c.get(`/console/endpoints/${id}/edit`)).text();
      expect(form).toContain('value="CRM &lt;sync&gt;"');
      expect(form).toMatch(/name="types" value="call\.completed" checked/);
      expect(form).toMatch(/name="types" value="lead\.created">/);
      expect(form).toContain('<button type="submit">Save</button>');
      expect(form).not.toMatch(/name="url"/);

      const saved = await c.post(`/console/endpoints/${id}/edit`, {
        csrf_token: csrfOf(form),
        description: '',
        types: ['lead.created', 'lead.updated'],
      });
      expect([saved.status, saved.headers.get('location')]).toEqual([303, `/console/endpoints/${id}?done=updated`]);
      expect(await row(id)).toMatchObject({ description: null, event_types: ['lead.created', 'lead.updated'] });
      const shown = await (await c.get(`/console/endpoints/${id}?done=updated`)).text();
      expect(shown).toContain('Endpoint saved: the next event is sent to it by its new event types.');
      expect(shown).toContain('<dd class="event-types">lead.created, lead.updated</dd>');
      expect(await auditOf(f.orgId, 'webhook_endpoint.updated')).toEqual([
        expect.objectContaining({
          actor_type: 'console_session',
          resource_ids: [id],
          details: expect.objectContaining({ description: { from: 'CRM <sync>', to: null } }),
        }),
      ]);
      // The next event follows the new types (fanned out in the event's own transaction).
      for (const type of ['call.completed', 'lead.created'] as const) {
        await t.app
          .get(Database)
          .transaction((tx) => recordEvent(t.app.get(EventsService), tx, { orgId: f.orgId, type, data: { call_id: 'call_e' } }));
      }
      expect(await t.sql('SELECT event_type FROM webhook_deliveries WHERE endpoint_id = $1', [id])).toEqual([
        { event_type: 'lead.created' },
      ]);
    });

    it('"Save" keeps at least one type and never takes a URL: a 400 page linking back to the endpoint, nothing changed', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f, { description: 'keep' });
      const c = await signIn(f);
      const before = await row(id);
      const none = await c.post(`/console/endpoints/${id}/edit`, { description: 'changed' });
      const noneText = await none.text();
      expect([none.status, none.headers.get('content-type')]).toEqual([400, 'text/html; charset=utf-8']);
      expect(noneText).toContain(`types needs at least one of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`);
      expect(noneText).toContain(`<a class="back" href="/console/endpoints/${id}">Back to the endpoint</a>`);
      const url = await c.post(`/console/endpoints/${id}/edit`, {
        description: 'changed',
        types: 'call.completed',
        url: 'https://x.example/',
      });
      expect([url.status, (await url.text()).includes('url is not allowed')]).toEqual([400, true]);
      expect(await row(id)).toEqual(before);
      expect(await auditOf(f.orgId, 'webhook_endpoint.updated')).toEqual([]);
    });

    it('bidirectional controls in untrusted text are shown as code points; the edit field keeps them as they are, and says so', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f, { description: 'Intake \u202Egnp.exe\u202C \u2067x\u2069' });
      const c = await signIn(f);
      const shown = 'Intake &lt;U+202E&gt;gnp.exe&lt;U+202C&gt; &lt;U+2067&gt;x&lt;U+2069&gt;';
      for (const path of ['/console/endpoints', `/console/endpoints/${id}`]) {
        const html = await (await c.get(path)).text();
        expect([path, html.includes(shown), /[\u202A-\u202E\u2066-\u2069]/.test(html)]).toEqual([path, true, false]);
      }
      const form = await (await c.get(`/console/endpoints/${id}/edit`)).text();
      expect(form).toContain('value="Intake \u202Egnp.exe\u202C \u2067x\u2069"');
      expect(form).toContain(`which reorder how it looks in the field: <span class="mono">${shown}</span>`);
    });

    it('a GET on a button’s address lands back on the endpoint page (303), changing nothing', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f);
      const c = await signIn(f);
      const delivery = '00000000-0000-4000-8000-000000000001';
      for (const action of ['test', 'disable', 'enable', 'rotate-secret', 'delete', `deliveries/${delivery}/resend`]) {
        const r = await c.get(`/console/endpoints/${id}/${action}`);
        expect([action, r.status, r.headers.get('location')]).toEqual([action, 303, `/console/endpoints/${id}`]);
      }
      const out = await c.get('/console/sign-out');
      expect([out.status, out.headers.get('location')]).toEqual([303, '/console/endpoints']);
      expect((await c.get('/console/endpoints')).status).toBe(200);
      expect([(await row(id)).url, await deliveriesOf(id)]).toEqual([expect.any(String), 0]);
      expect(await t.sql(`SELECT status FROM webhook_endpoints WHERE id = $1`, [id])).toEqual([{ status: 'enabled' }]);
    });

    it('a refusal speaks of the console’s own buttons and links back to the endpoint it came from', async () => {
      const f = await createFirm(t.app);
      const id = await endpointFor(f);
      const c = await signIn(f);
      expect((await c.post(`/console/endpoints/${id}/disable`)).status).toBe(303);
      const refused = await c.post(`/console/endpoints/${id}/test`);
      const text = await refused.text();
      expect(refused.status).toBe(409);
      expect(text).toContain('This endpoint is turned off (owner), so nothing can be sent to it. Enable it first.');
      expect(text).not.toMatch(/dashboard/i);
      expect(text).toContain(`href="/console/endpoints/${id}">Back to the endpoint</a>`);
      // As problem+json for anything but a browser, with the same code as the API's.
      const json = await c.post(`/console/endpoints/${id}/test`, {}, { accept: 'application/json' });
      expect([json.status, ((await json.json()) as any).code]).toEqual([409, 'endpoint_disabled']);
      // Not found: back to the list, not to an endpoint that is not there.
      const missing = await (await c.get('/console/endpoints/00000000-0000-4000-8000-000000000000')).text();
      expect(missing).toContain('<a class="back" href="/console/endpoints">Back to your endpoints</a>');
    });
  });
}
