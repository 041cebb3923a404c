import { InvalidRequestError, NotFoundError } from '../../../src/common/errors/problems';
import { Database } from '../../../src/database/sql';
import { EventsService } from '../../../src/events';
import { DeliveryHistoryService, WebhookDeliveriesService, WebhookEndpointsService, type DeliveryPage } from '../../../src/webhooks';
import { recordEvent } from '../../support/events';
import { createFirm, type TestFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';

/**
 * What the console shows of an endpoint's deliveries (DeliveryHistoryService): pages of 20 either way by cursor,
 * filtered by status and event type, each delivery with the body its attempts sent and, when it failed, the
 * redeliveries of its event made since. The byte-for-byte comparison with what a receiver got is the browser test's
 * (test/owner-console/console-browser.cases.ts).
 */
describe('an endpoint’s deliveries as the console shows them (DeliveryHistoryService)', () => {
  let m: MediumService<DeliveryHistoryService>;
  let f: TestFirm;
  let endpointId: string;
  let scope: { orgId: string; livemode: boolean };
  /** Every delivery of the endpoint, newest first, as the database orders them. */
  let all: { id: string; status: string; event_type: string; event_id: string }[];

  beforeAll(async () => {
    m = await newMediumService(DeliveryHistoryService);
    f = await createFirm(m.module, { publish: false });
    scope = { orgId: f.orgId, livemode: true };
    const endpoints = m.module.get(WebhookEndpointsService);
    endpointId = (await endpoints.create({ orgId: f.orgId, url: 'https://hooks.example.com/h', eventTypes: 'call.completed,lead.created' }))
      .endpoint.id;
    const record = (type: 'call.completed' | 'lead.created', i: number) =>
      m.module
        .get(Database)
        .transaction((tx) => recordEvent(m.module.get(EventsService), tx, { orgId: f.orgId, type, data: { call_id: `call_${i}` } }));
    // 5 lead.created missed while the endpoint was off (failed, no attempt), then 25 pending call.completed.
    await endpoints.disable(endpointId);
    for (let i = 0; i < 5; i++) await record('lead.created', i);
    await endpoints.enable(endpointId);
    for (let i = 0; i < 25; i++) await record('call.completed', i);
    all = await m.sql(
      'SELECT id, status, event_type, event_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC',
      [endpointId],
    );
  });
  afterAll(() => m.close());

  const ids = (p: DeliveryPage) => p.deliveries.map((d) => d.id);

  it('pages 20 at a time, older and back newer, each cursor only where a page lies that way', async () => {
    const first = await m.sut.page(scope, endpointId, {});
    expect([ids(first), first.newer]).toEqual([all.slice(0, 20).map((d) => d.id), null]);
    const second = await m.sut.page(scope, endpointId, { older: first.older! });
    expect([ids(second), second.older]).toEqual([all.slice(20).map((d) => d.id), null]);
    const back = await m.sut.page(scope, endpointId, { newer: second.newer! });
    expect([ids(back), back.newer]).toEqual([ids(first), null]);
    expect(back.older).not.toBeNull();
    expect(ids(await m.sut.page(scope, endpointId, { older: back.older! }))).toEqual(ids(second));
    // Three pages of 12: forward to the last, then back to the first.
    const pages = [await m.sut.page(scope, endpointId, {}, 12)];
    while (pages.at(-1)!.older) pages.push(await m.sut.page(scope, endpointId, { older: pages.at(-1)!.older! }, 12));
    expect(pages.map((p) => p.deliveries.length)).toEqual([12, 12, 6]);
    const middle = await m.sut.page(scope, endpointId, { newer: pages[2].newer! }, 12);
    expect([ids(middle), ids(await m.sut.page(scope, endpointId, { newer: middle.newer! }, 12))]).toEqual([ids(pages[1]), ids(pages[0])]);
  });

  it('filters by status and event type; a cursor is bound to its filters', async () => {
    const failed = await m.sut.page(scope, endpointId, { status: 'failed' });
    expect(ids(failed)).toEqual(all.filter((d) => d.status === 'failed').map((d) => d.id));
    expect(failed.deliveries.every((d) => d.event_type === 'lead.created' && d.attempts.length === 0)).toBe(true);
    const calls = await m.sut.page(scope, endpointId, { eventType: 'call.completed' });
    expect(ids(calls)).toEqual(
      all
        .filter((d) => d.event_type === 'call.completed')
        .slice(0, 20)
        .map((d) => d.id),
    );
    expect((await m.sut.page(scope, endpointId, { eventType: 'call.completed', older: calls.older! })).deliveries).toHaveLength(5);
    expect((await m.sut.page(scope, endpointId, { eventType: 'lead.updated' })).deliveries).toEqual([]);
    await expect(m.sut.page(scope, endpointId, { older: calls.older! })).rejects.toThrow(InvalidRequestError);
    await expect(
      m.sut.page({ orgId: f.orgId, livemode: false }, endpointId, { eventType: 'call.completed', older: calls.older! }),
    ).rejects.toThrow(InvalidRequestError);
  });

  it('each delivery carries the body its attempts send (the event as GET /v1/events/{id} answers it) and its webhook-id', async () => {
    const { deliveries } = await m.sut.page(scope, endpointId, {});
    const events = m.module.get(EventsService);
    for (const d of deliveries) {
      expect(d.sent).toEqual({ body: JSON.stringify(await events.get(scope, d.event_id)), webhookId: d.event_id, timestamps: [] });
    }
  });

  it('a failed delivery lists the redeliveries of its event made since; other deliveries list none', async () => {
    // An endpoint of its own: the redelivery adds a delivery the other cases would see.
    const endpoints = m.module.get(WebhookEndpointsService);
    const id = (await endpoints.create({ orgId: f.orgId, url: 'https://hooks.example.com/r', eventTypes: 'lead.updated' })).endpoint.id;
    await endpoints.disable(id);
    await m.module
      .get(Database)
      .transaction((tx) =>
        recordEvent(m.module.get(EventsService), tx, { orgId: f.orgId, type: 'lead.updated', data: { lead_id: 'lead_r' } }),
      );
    await endpoints.enable(id);
    const [missed] = (await m.sut.page(scope, id, {})).deliveries;
    expect([missed.status, missed.resent]).toEqual(['failed', []]);
    const redelivered = await m.module.get(WebhookDeliveriesService).redeliver(scope, missed.id);
    const shown = await m.sut.one(scope, id, missed.id);
    expect(shown.resent.map((r) => [r.id, r.trigger, r.status])).toEqual([[redelivered.id, 'redelivery', 'pending']]);
    const page = await m.sut.page(scope, id, {});
    expect(page.deliveries.map((d) => [d.id, d.resent.map((r) => r.id)])).toEqual([
      [redelivered.id, []],
      [missed.id, [redelivered.id]],
    ]);
  });

  it('one delivery is found only through its own endpoint', async () => {
    const other = await m.module
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: 'https://hooks.example.com/other', eventTypes: 'lead.updated' });
    await expect(m.sut.one(scope, other.endpoint.id, all[0].id)).rejects.toThrow(NotFoundError);
    await expect(m.sut.one(scope, endpointId, 'nope')).rejects.toThrow(NotFoundError);
    expect((await m.sut.one(scope, endpointId, all[0].id.toUpperCase())).id).toBe(all[0].id);
  });
});
