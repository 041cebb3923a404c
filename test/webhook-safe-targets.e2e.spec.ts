import { Database } from '../src/database/sql';
import { EventsService } from '../src/events';
import { InvalidInputError } from '../src/common/errors/invalid-input';
import { WebhookEndpointsService } from '../src/webhooks';
import { createFirm, type TestFirm } from './support/factories';
import { waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';
import { startSelfSignedHttps } from './support/tls';
import { recordEvent } from './support/events';

/** Production setting (WEBHOOK_ALLOW_PRIVATE_TARGETS unset): only https to public addresses. */
describe('safe webhook targets', () => {
  let t: TestApp;
  let firm: TestFirm;
  let target: Awaited<ReturnType<typeof startSelfSignedHttps>>;
  beforeAll(async () => {
    target = await startSelfSignedHttps();
    t = await startTestApp();
    firm = await createFirm(t.app, { publish: false });
  });
  afterAll(async () => {
    await t.close();
    await target.close();
  });

  const svc = () => t.app.get(WebhookEndpointsService);

  it('refuses non-https URLs and private address literals at creation', async () => {
    // A firm of its own: the count at the end must not see the other tests' endpoints, in any order.
    const own = await createFirm(t.app, { publish: false });
    const refused = async (url: string, message: RegExp) => {
      await expect(svc().create({ orgId: own.orgId, url, eventTypes: 'lead.created' })).rejects.toThrow(InvalidInputError);
      await expect(svc().create({ orgId: own.orgId, url, eventTypes: 'lead.created' })).rejects.toThrow(message);
    };
    await refused('http://hooks.example.com/x', /https/);
    await refused('ftp://hooks.example.com/x', /https/);
    await refused('https://127.0.0.1/x', /not public/);
    await refused('https://[::1]/x', /not public/);
    await refused('https://localhost/x', /not public/);
    await refused('https://10.0.0.8/x', /not public/);
    await refused('https://169.254.169.254/latest/meta-data', /not public/);
    await refused('https://user:pw@hooks.example.com/x', /user name or password/);
    expect(await t.sql(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE org_id = $1`, [own.orgId])).toEqual([{ n: 0 }]);
  });

  it('resolves before connecting and records a private target as "disallowed address", never connecting', async () => {
    // A name that was public when the endpoint was created and resolves to loopback now (DNS rebinding):
    // only the lookup at send time can catch it. localhost stands in for it (creation refuses it by name).
    const { endpoint } = await svc().create({
      orgId: firm.orgId,
      url: `https://hooks.example.com:${target.port}/hook`,
      eventTypes: 'lead.created',
    });
    await t.sql(`UPDATE webhook_endpoints SET url = $2 WHERE id = $1`, [endpoint.id, `https://localhost:${target.port}/hook`]);
    const e = await t.app
      .get(Database)
      .transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId: firm.orgId, type: 'lead.created', data: {} }));
    const d = await waitFor(
      async () => (await t.sql(`SELECT * FROM webhook_deliveries WHERE event_id = $1 AND attempt_count = 1`, [e.envelope.id]))[0],
      'the attempt',
    );
    expect(d.status).toBe('pending');
    expect(d.attempts[0]).toEqual({
      at: expect.any(String),
      status_code: null,
      duration_ms: expect.any(Number),
      error: 'disallowed address',
      response_body: null,
    });
    expect(target.connections()).toBe(0);

    // Stored URLs that point at literal private addresses (e.g. created while private targets were allowed).
    for (const url of [
      `https://127.0.0.1:${target.port}/hook`,
      `https://[::ffff:127.0.0.1]:${target.port}/hook`,
      `http://hooks.example.com/hook`,
    ]) {
      await t.sql(`UPDATE webhook_endpoints SET url = $2 WHERE id = $1`, [endpoint.id, url]);
      const ev = await t.app
        .get(Database)
        .transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId: firm.orgId, type: 'lead.created', data: {} }));
      const x = await waitFor(
        async () => (await t.sql(`SELECT * FROM webhook_deliveries WHERE event_id = $1 AND attempt_count = 1`, [ev.envelope.id]))[0],
        `the attempt to ${url}`,
      );
      expect(x.attempts[0]).toMatchObject({ status_code: null, duration_ms: null, error: 'disallowed address' });
    }
    expect(target.connections()).toBe(0);
    await svc().disable(endpoint.id);
  });
});
