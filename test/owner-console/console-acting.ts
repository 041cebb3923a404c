import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { recordEvent } from '../support/events';
import { createFirm } from '../support/factories';
import type { TestApp } from '../support/test-app';
import { HOUR_MS, type ConsoleOverHttp } from './console-context';

/** The console over HTTP: the buttons, their refusals and their audit entries. */
export function acting(shared: ConsoleOverHttp): void {
  describe('acting', () => {
    let t: TestApp;
    const { tokens, endpointFor, signIn, deliveriesOf, auditOf } = shared;
    beforeAll(() => {
      ({ t } = shared);
    });

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
}
