import { walkDocument } from '../support/doc-walk';
import { servedDocument, type ServedDocument } from '../support/served-document';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

/**
 * Enumerations the spec calls open may gain values: the document lists their
 * known values in `x-extensible-enum` and closes none of them, so a strict
 * generated client keeps accepting a value added later. Query parameters and
 * request bodies are not among them: the service refuses a value it does not
 * know. An event's type is open through the union the events list answers
 * (KnownEvent's four types, or OtherEvent: any other type).
 */
type Json = Record<string, any>;

let t: TestApp;
let served: ServedDocument;
let doc: Json;

beforeAll(async () => {
  t = await sharedTestApp();
  served = await servedDocument(t);
  doc = served.doc;
});

/** The enumerations the spec calls open, with the values it lists (Call, Lead, Event, Webhook endpoint and delivery, data by type). */
const OPEN = {
  category: [
    'new_injury_lead',
    'existing_client',
    'judge_court',
    'process_server',
    'opposing_counsel',
    'referring_attorney',
    'insurance_adjuster',
    'medical_provider',
    'litigation_funding',
    'out_of_practice',
    'sales',
    'wrong_number',
    'other',
  ],
  urgency: ['high', 'normal', 'low'],
  language: ['en', 'es', 'mixed', 'unknown'],
  outcome: ['connected', 'declined', 'caller_gone', 'no_answer', 'not_attempted'],
  // The spec's four, and the events about the webhooks themselves (issue 42).
  event_type: [
    'call.completed',
    'lead.created',
    'lead.updated',
    'webhook.test',
    'webhook_endpoint.disabled',
    'webhook_endpoint.enabled',
    'webhook_delivery.exhausted',
    'webhook_endpoint.recovered',
  ],
};
const EVENT_TYPES = OPEN.event_type;
/** What an endpoint may subscribe to: every type but webhook.test. */
const SUBSCRIBABLE = EVENT_TYPES.filter((type) => type !== 'webhook.test');

describe('open enumerations', () => {
  /** Where an open enumeration lives in a response or payload schema, and its known values there. */
  const openSites = () => {
    const sites: { at: string; node: Json; known: string[] }[] = [];
    const visit =
      (base: string) =>
      ({ pointer, node, property }: { pointer: string; node: Json; property?: string }) => {
        const at = pointer.replace(/^#/, base);
        if (property && property in OPEN && property !== 'event_type') sites.push({ at, node, known: OPEN[property as keyof typeof OPEN] });
        if (property === 'event_type') sites.push({ at, node, known: EVENT_TYPES });
        if (property === 'event_types' && node.items) sites.push({ at: `${at}/items`, node: node.items, known: SUBSCRIBABLE });
        // The envelope's `type` (a schema with the envelope's members), except one event type's own envelope, where it is
        // the discriminator, fixed on purpose.
        const members = node.properties as Json | undefined;
        if (members?.type && members.org && members.data && !EVENT_TYPES.includes(members.type.const))
          sites.push({ at: `${at}/properties/type`, node: members.type, known: EVENT_TYPES });
      };
    // A request body's schema lists the values the service takes now (it refuses any other).
    const bodies = new Set(
      Object.values<Json>(doc.paths).flatMap((item) =>
        Object.values<Json>(item).map((op) => op.requestBody?.content?.['application/json']?.schema?.$ref?.split('/').pop()),
      ),
    );
    for (const [name, schema] of Object.entries<Json>(doc.components.schemas)) {
      if (!bodies.has(name)) walkDocument(schema, visit(`#/components/schemas/${name}`));
    }
    walkDocument(doc.webhooks, visit('#/webhooks'));
    return sites;
  };

  it('every one the spec calls open (category, urgency, language, outcome, event type), wherever it appears, lists its known values in x-extensible-enum and closes nothing', () => {
    const sites = openSites();
    const closed = sites.filter(({ node }) => node.enum !== undefined || node.const !== undefined).map(({ at }) => at);
    expect(closed).toEqual([]);
    // A property of one of these names that is free text (a team member's language, a conversation outcome) lists nothing;
    // the ones the spec enumerates all list the spec's values, and there are as many as the spec has.
    const listed = sites.filter(({ node }) => node['x-extensible-enum']);
    for (const { at, node, known } of listed) expect([at, [...node['x-extensible-enum']].sort()]).toEqual([at, [...known].sort()]);
    const where = listed.map(({ at }) => at.replace('#/components/schemas/', ''));
    expect(where).toEqual(
      expect.arrayContaining([
        ...['CallDto', 'CallDetailDto'].flatMap((s) => ['category', 'urgency', 'language', 'outcome'].map((p) => `${s}/properties/${p}`)),
        ...['category', 'urgency', 'language'].map((p) => `LeadDto/properties/${p}`),
        ...['category', 'urgency', 'outcome'].map((p) => `CallCompletedData/properties/${p}`),
        ...['category', 'urgency'].map((p) => `LeadCreatedData/properties/${p}`),
        'WebhookDeliveryDto/properties/event_type',
        'WebhookEndpointDto/properties/event_types/items',
      ]),
    );
    // An event of any other type is OtherEvent, whose type is open: any string but the known ones.
    expect(doc.components.schemas.OtherEvent.properties.type).toMatchObject({ type: 'string', not: { enum: EVENT_TYPES } });
    // Each webhooks entry fixes its own type (the discriminator) and takes its data from the open schemas above.
    for (const type of EVENT_TYPES) {
      const ref: string = doc.webhooks[type].post.requestBody.content['application/json'].schema.$ref;
      const body = doc.components.schemas[ref.split('/').pop()!];
      expect(body.properties.type.const).toBe(type);
      expect(body.properties.data.$ref).toMatch(/^#\/components\/schemas\/\w+Data$/);
    }
  });

  it('a value added later validates where the enumeration is open, and an unknown member still does not', () => {
    const at = '#/components/schemas/WebhookEndpointDto';
    const [base] = doc.paths['/v1/webhook-endpoints'].get.responses['200'].content['application/json'].example.endpoints;
    expect(served.validateAt(at, { ...base, event_types: ['call.completed', 'call.transcribed'] })).toEqual([]);
    expect(served.validateAt(at, { ...base, surprise: true })).not.toEqual([]);
    const call = doc.paths['/v1/calls'].get.responses['200'].content['application/json'].example.calls[0];
    expect(served.validateAt('#/components/schemas/CallDto', { ...call, category: 'a_category_added_later', urgency: 'urgent' })).toEqual(
      [],
    );
  });
});
