import { Database } from '../../src/database/sql';
import { EVENT_TYPES, EventsService } from '../../src/events';
import { WebhookEndpointsService } from '../../src/webhooks';
import { firmEventsListable, recordEvent } from '../support/events';
import { startAppWithFirmData, type AppWithFirmData, type FirmWithData } from '../support/firm-data';
import { servedDocument, type ServedDocument } from '../support/served-document';
import type { TestApp } from '../support/test-app';

/**
 * Events typed by type: in the served document the events list, the single
 * event and the webhooks section tie each known `type` to its own `data`
 * (KnownEvent, a union discriminated on `type`), while an event of a type
 * added later still validates (OtherEvent: any other type, any data). Judged
 * by ajv on the document as served, with real events of every known type.
 */
type Json = Record<string, any>;

let fixture: AppWithFirmData;
let t: TestApp;
let served: ServedDocument;
let firm: FirmWithData;
let events: Json[];
const EVENT = '#/components/schemas/EventDto';
const schemas = () => served.doc.components.schemas;
const envelopeOf = (type: string) => schemas().KnownEvent.discriminator.mapping[type] as string;

beforeAll(async () => {
  fixture = await startAppWithFirmData();
  ({ t, firm } = fixture);
  served = await servedDocument(t);
  const key = firm.keys['read-update-leads'];
  const test = await t.request('POST', `/v1/webhook-endpoints/${firm.endpointId}/test`, { key });
  expect(test.status).toBe(202);
  // The events about the webhooks themselves: the owner turns the endpoint off and on; the dispatcher's two (a delivery
  // out of attempts, a recovery) as it records them.
  await t.app.get(WebhookEndpointsService).disable(firm.endpointId);
  await t.app.get(WebhookEndpointsService).enable(firm.endpointId);
  await t.app.get(Database).transaction(async (tx) => {
    const about = { endpoint_id: firm.endpointId };
    await recordEvent(t.app.get(EventsService), tx, { orgId: firm.orgId, type: 'webhook_delivery.exhausted', data: about });
    await recordEvent(t.app.get(EventsService), tx, { orgId: firm.orgId, type: 'webhook_endpoint.recovered', data: about });
  });
  await firmEventsListable(t, firm.orgId);
  events = (await t.get('/v1/events', { key, query: { limit: 100 } })).body.events;
}, 60_000);
afterAll(() => fixture.close());

describe('events typed by type in the served document', () => {
  it('the list, the single event and every webhook name the same per-type envelopes', () => {
    const paths = served.doc.paths;
    expect(paths['/v1/events'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/EventListDto');
    expect(schemas().EventListDto.properties.events.items.$ref).toBe(EVENT);
    expect(paths['/v1/events/{event_id}'].get.responses['200'].content['application/json'].schema.$ref).toBe(EVENT);
    expect(schemas().EventDto.oneOf).toEqual([{ $ref: '#/components/schemas/KnownEvent' }, { $ref: '#/components/schemas/OtherEvent' }]);
    // The discriminator covers the four known types, each mapped to an envelope whose type is that one and whose data is its own.
    const { discriminator, oneOf } = schemas().KnownEvent;
    expect(discriminator.propertyName).toBe('type');
    expect(Object.keys(discriminator.mapping).sort()).toEqual([...EVENT_TYPES].sort());
    expect(oneOf.map((m: Json) => m.$ref).sort()).toEqual(Object.values(discriminator.mapping).sort());
    const dataOf = new Set<string>();
    for (const type of EVENT_TYPES) {
      const envelope = schemas()[envelopeOf(type).split('/').pop()!];
      expect(envelope.properties.type.const).toBe(type);
      dataOf.add(envelope.properties.data.$ref);
      expect(served.doc.webhooks[type].post.requestBody.content['application/json'].schema.$ref).toBe(envelopeOf(type));
    }
    expect(dataOf.size).toBe(EVENT_TYPES.length);
  });

  it('every real event validates as its own type, and as an event', () => {
    expect([...new Set(events.map((e) => e.type))].sort()).toEqual([...EVENT_TYPES].sort());
    for (const e of events) {
      expect([e.type, served.validateAsServed(envelopeOf(e.type), e)]).toEqual([e.type, []]);
      expect([e.type, served.validateAsServed(EVENT, e)]).toEqual([e.type, []]);
    }
  });

  it("a known type carrying another type's data, or missing a member of its own, is no event", () => {
    const byType = Object.fromEntries(events.map((e) => [e.type, e]));
    for (const type of EVENT_TYPES) {
      // Another type's data that holds every member of this type's is this type's data too, since data is open (unknown
      // members are ignored): webhook_endpoint.enabled's {endpoint_id} is within every webhook event's data.
      const within = (other: string) => Object.keys(byType[type].data).every((member) => member in byType[other].data);
      for (const other of EVENT_TYPES.filter((o) => o !== type && !within(o))) {
        expect([type, other, served.validateAsServed(EVENT, { ...byType[type], data: byType[other].data })]).toEqual([
          type,
          other,
          expect.arrayContaining([expect.any(String)]),
        ]);
      }
      const [first] = Object.keys(byType[type].data);
      const { [first]: _dropped, ...missing } = byType[type].data;
      expect(served.validateAsServed(EVENT, { ...byType[type], data: missing })).not.toEqual([]);
    }
  });

  it('an event of a type added later validates, whatever its data, and is never taken for a known one', () => {
    const base = events.find((e) => e.type === 'call.completed')!;
    const later: Json = {
      ...base,
      type: 'call.transcribed',
      data: { call_id: base.data.call_id, words: 1200, anything: { nested: true } },
    };
    expect(served.validateAsServed(EVENT, later)).toEqual([]);
    expect(served.validateAsServed('#/components/schemas/OtherEvent', later)).toEqual([]);
    expect(served.validateAsServed('#/components/schemas/KnownEvent', later)).not.toEqual([]);
    // Only webhook.test is a test, so a later type's event is not one.
    expect(served.validateAsServed(EVENT, { ...later, test: true })).not.toEqual([]);
    // Known members stay required on it.
    const { timestamp: _t, ...noTimestamp } = later;
    expect(served.validateAsServed(EVENT, noTimestamp)).not.toEqual([]);
  });
});
