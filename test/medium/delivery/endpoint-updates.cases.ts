import { InvalidInputError } from '../../../src/common/errors/invalid-input';
import { NotFoundError } from '../../../src/common/errors/problems';
import { Database } from '../../../src/database/sql';
import { EventsService, SUBSCRIBABLE_EVENT_TYPES } from '../../../src/events';
import { WebhookEndpointsService, WebhookEndpointUpdatesService } from '../../../src/webhooks';
import { recordEvent } from '../../support/events';
import { createFirm, type TestFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';

/**
 * The one rule for changing an endpoint (WebhookEndpointUpdatesService.update), which the CLI's `endpoint update`
 * and the console's "Save" both call: the description and the event types change, the URL never does, at least one
 * type stays, each change is audited with its actor, and the next event is fanned out by the new types.
 */
describe('changing an endpoint (WebhookEndpointUpdatesService)', () => {
  let m: MediumService<WebhookEndpointUpdatesService>;
  beforeAll(async () => {
    m = await newMediumService(WebhookEndpointUpdatesService);
  });
  afterAll(() => m.close());

  const endpointOf = async (f: TestFirm, types = 'call.completed', livemode = true) =>
    (
      await m.module.get(WebhookEndpointsService).create({
        orgId: f.orgId,
        url: 'https://hooks.example.com/intake',
        eventTypes: types,
        description: 'CRM sync',
        livemode,
      })
    ).endpoint;
  const row = async (id: string) =>
    (await m.sql('SELECT url, description, event_types, updated_at FROM webhook_endpoints WHERE id = $1', [id]))[0];
  const audited = (id: string) =>
    m.sql(
      `SELECT actor_type, actor_id, details FROM audit_log WHERE action = 'webhook_endpoint.updated' AND $1 = ANY(resource_ids) ORDER BY id`,
      [id],
    );
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('the update was accepted');
      },
      (e: unknown) => e,
    );

  it('refuses a URL, whatever else is asked, with a message naming the way (a new endpoint); nothing changes', async () => {
    const f = await createFirm(m.module, { publish: false });
    const e = await endpointOf(f);
    const before = await row(e.id);
    for (const url of ['https://hooks.example.com/other', e.url, '']) {
      const err = await refusal(m.sut.update(e.id, { url, description: 'new label', eventTypes: 'lead.created' }));
      expect(err).toBeInstanceOf(InvalidInputError);
      expect((err as InvalidInputError).field).toBe('url');
      expect((err as InvalidInputError).reason).toMatch(/^cannot be changed: .*add a new endpoint/);
    }
    expect(await row(e.id)).toEqual(before);
    expect(await audited(e.id)).toEqual([]);
  });

  it('keeps at least one event type, refuses unknown ones and a description over 200 characters; nothing changes', async () => {
    const f = await createFirm(m.module, { publish: false });
    const e = await endpointOf(f, 'call.completed,lead.created');
    const before = await row(e.id);
    const asked: Parameters<WebhookEndpointUpdatesService['update']>[1][] = [
      { eventTypes: [] },
      { eventTypes: '' },
      { eventTypes: ' , ' },
      { eventTypes: 'lead.created,webhook.test' },
      { description: 'x'.repeat(201), eventTypes: 'lead.created' },
      {},
    ];
    const reasons: string[] = [];
    for (const change of asked) {
      const err = await refusal(m.sut.update(e.id, change));
      expect(err).toBeInstanceOf(InvalidInputError);
      reasons.push(`${(err as InvalidInputError).field}: ${(err as InvalidInputError).reason}`);
    }
    const types = SUBSCRIBABLE_EVENT_TYPES.join(', ');
    expect(reasons).toEqual([
      `types: needs at least one of ${types}`,
      `types: needs at least one of ${types}`,
      `types: needs at least one of ${types}`,
      `types: : webhook.test cannot be subscribed to; use ${types}`,
      'description: must be at most 200 characters',
      'null: nothing to change: give a new description, new event types, or both',
    ]);
    expect(await row(e.id)).toEqual(before);
    expect(await audited(e.id)).toEqual([]);
  });

  it('changes the description (empty clears it) and the types, audited with the actor, from and to; a repeat records nothing', async () => {
    const f = await createFirm(m.module, { publish: false });
    const e = await endpointOf(f);
    const changed = await m.sut.update(e.id, { eventTypes: ['lead.updated', 'call.completed'], description: '  Intake  ' });
    expect(changed).toEqual({ ...e, description: 'Intake', event_types: ['call.completed', 'lead.updated'] });
    const cleared = await m.sut.update(e.id, { description: '' }, { actor: { type: 'console_session', id: 'a-session' } });
    expect(cleared.description).toBeNull();
    // The API's list shows the change (GET /v1/webhook-endpoints reads the same service).
    expect(await m.module.get(WebhookEndpointsService).list(f.orgId, true)).toEqual([cleared]);
    await m.sut.update(e.id, { description: null, eventTypes: 'call.completed,lead.updated' });
    expect(await audited(e.id)).toEqual([
      {
        actor_type: 'owner',
        actor_id: null,
        details: {
          description: { from: 'CRM sync', to: 'Intake' },
          event_types: { from: ['call.completed'], to: ['call.completed', 'lead.updated'] },
        },
      },
      { actor_type: 'console_session', actor_id: 'a-session', details: { description: { from: 'Intake', to: null } } },
    ]);
    expect((await row(e.id)).updated_at.getTime()).toBeGreaterThan(new Date(e.created_at).getTime() - 1);
  });

  it('the next event follows the new types; deliveries made before stay as they were', async () => {
    const f = await createFirm(m.module, { publish: false });
    const e = await endpointOf(f, 'call.completed');
    const record = (type: 'call.completed' | 'lead.created') =>
      m.module
        .get(Database)
        .transaction((tx) => recordEvent(m.module.get(EventsService), tx, { orgId: f.orgId, type, data: { call_id: 'call_x' } }));
    const deliveredTypes = async () =>
      (await m.sql('SELECT event_type FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at, event_type', [e.id])).map(
        (r) => r.event_type,
      );
    await record('call.completed');
    await record('lead.created');
    expect(await deliveredTypes()).toEqual(['call.completed']);
    await m.sut.update(e.id, { eventTypes: 'lead.created' });
    await record('call.completed');
    await record('lead.created');
    expect(await deliveredTypes()).toEqual(['call.completed', 'lead.created']);
  });

  it('a console session reaches only its own firm’s endpoints of its mode (404 like an unknown id); the CLI’s malformed id is a usage error', async () => {
    const f = await createFirm(m.module, { publish: false });
    const other = await createFirm(m.module, { publish: false });
    const live = await endpointOf(f);
    const test = await endpointOf(f, 'call.completed', false);
    const foreign = await endpointOf(other);
    const session = { actor: { type: 'console_session' as const, id: 's' }, scope: { orgId: f.orgId, livemode: true } };
    for (const id of [test.id, foreign.id, '00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      expect(await refusal(m.sut.update(id, { description: 'x' }, session))).toBeInstanceOf(NotFoundError);
    }
    expect((await m.sut.update(live.id, { description: 'mine' }, session)).description).toBe('mine');
    const malformed = await refusal(m.sut.update('not-an-id', { description: 'x' }));
    expect([malformed instanceof InvalidInputError, (malformed as Error).message]).toEqual([
      true,
      '"not-an-id" is not a webhook endpoint id',
    ]);
    expect((await row(foreign.id)).description).toBe('CRM sync');
  });
});
