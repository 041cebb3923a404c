import { firmEventsListable } from '../support/events';
import { randomBytes, randomUUID } from 'node:crypto';
import { WebhookEndpointsService } from '../../src/webhooks';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm } from '../support/factories';
import { servedDocument } from '../support/served-document';
import { sharedTestApp } from '../support/shared-app';
import { createTestKeys, simulateTestCall } from '../support/test-mode';
import type { TestApp } from '../support/test-app';

/**
 * Every id in the served document's examples has the shape of the ids the server issues for its kind: an example is
 * what a client will really see, and an integrator who copies one into a test, a fixture or a validator must not learn
 * a shape the server never sends. The patterns are checked against ids this app really issues first.
 */
type Json = Record<string, any>;

const CROCKFORD = '[0-9a-hjkmnp-tv-z]';
/** base64 of bytes whose count leaves 4 bits for the last character: it is one of these. */
const LAST_OF_32_BYTES = '[AEIMQUYcgkosw048]';
const SHAPES = {
  /** `evt_` + time (10) + the position the INSERT puts in (16) + 6 random: src/common/ids.ts, eventIdEnds. */
  event: new RegExp(`^evt_${CROCKFORD}{32}$`),
  /** newLeadId: `lead_` + a sortable id (26). */
  lead: new RegExp(`^lead_${CROCKFORD}{26}$`),
  /** newCallId, what the test helpers issue (the pipeline may choose any plain id; the examples use the service's own). */
  call: new RegExp(`^call_${CROCKFORD}{26}$`),
  /** Firms, keys, endpoints, deliveries, requests and errors: random (version 4) uuids, lower case. */
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  /** A recording link's token: 32 random bytes, base64url. */
  linkToken: new RegExp(`^[A-Za-z0-9_-]{42}${LAST_OF_32_BYTES}$`),
  /** The 8 characters after svc_live_ that start a key. */
  keyPrefix: /^[A-Za-z0-9_-]{8}$/,
  /** A key's last 4: the end of 32 random bytes, base64url. */
  keyLast4: new RegExp(`^[A-Za-z0-9_-]{3}${LAST_OF_32_BYTES}$`),
  /** A signing secret's last 4: the end of whsec_ + 32 random bytes, base64 (one `=` of padding). */
  secretLast4: new RegExp(`^[A-Za-z0-9+/]{2}${LAST_OF_32_BYTES}=$`),
};
type Kind = keyof typeof SHAPES;

/** The kind of id a member, parameter or header of this name holds. */
const KIND_OF_NAME: Record<string, Kind> = {
  call_id: 'call',
  ids: 'call',
  lead_id: 'lead',
  event_id: 'event',
  after: 'event',
  next_after: 'event',
  restart_after: 'event',
  'webhook-id': 'event',
  endpoint_id: 'uuid',
  delivery_id: 'uuid',
  org_id: 'uuid',
  request_id: 'uuid',
  RequestId: 'uuid',
  'x-request-id': 'uuid',
  error_id: 'uuid',
  token: 'linkToken',
  prefix: 'keyPrefix',
  last4: 'keyLast4',
  secret_last4: 'secretLast4',
};
/** Ids written inside other text (a url, a message): `/v1/recordings/<token>`, `evt_...`, `lead_...`, `call_...`. */
const EMBEDDED: [RegExp, Kind][] = [
  // An id, not a member's name (`call_id`) in a message: 10 or more characters after the prefix, a digit among them.
  [/\bevt_(?=[A-Za-z]*\d)[A-Za-z0-9]{10,}/g, 'event'],
  [/\blead_(?=[A-Za-z]*\d)[A-Za-z0-9]{10,}/g, 'lead'],
  [/\bcall_(?=[A-Za-z]*\d)[A-Za-z0-9]{10,}/g, 'call'],
  [/\/v1\/recordings\/([^/?#\s]+)/g, 'linkToken'],
  [/\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g, 'uuid'],
];

interface Leaf {
  at: string;
  name: string | undefined;
  value: unknown;
  /** The object the value is a member of (an example's), if any. */
  holder?: Json;
}

/** Every value under `example`/`examples` in the document, each named by its member, property, parameter or header. */
export function exampleLeaves(node: unknown, at = '#', name?: string, headers = false): Leaf[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => exampleLeaves(item, `${at}/${i}`, name));
  if (typeof node !== 'object' || node === null) return [];
  const n = node as Json;
  const own = typeof n.name === 'string' && typeof n.in === 'string' ? n.name : name;
  return Object.entries(n).flatMap(([key, value]) => {
    if (key === 'example') return valueLeaves(value, `${at}/example`, own);
    if (key === 'examples' && Array.isArray(value)) return valueLeaves(value, `${at}/examples`, own);
    if (key === 'examples') return Object.entries<Json>(value).flatMap(([k, e]) => valueLeaves(e.value, `${at}/examples/${k}`, own));
    if (key === 'properties' || headers) {
      const named = key === 'properties' ? Object.entries<Json>(value) : [[key, value] as [string, Json]];
      return named.flatMap(([member, schema]) =>
        exampleLeaves(schema, `${at}/${key === 'properties' ? 'properties/' : ''}${member}`, member),
      );
    }
    return exampleLeaves(value, `${at}/${key}`, own, key === 'headers');
  });
}

function valueLeaves(value: unknown, at: string, name: string | undefined, holder?: Json): Leaf[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => valueLeaves(v, `${at}/${i}`, name, holder));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, v]) => valueLeaves(v, `${at}/${k}`, k, value as Json));
  return [{ at, name, value, holder }];
}

/** The kind an example of this name holds; `id` is an event's in an event (a schema or an object with type and data), else a uuid. */
function kindOf(leaf: Leaf): Kind | undefined {
  if (leaf.name !== 'id') return leaf.name === undefined ? undefined : KIND_OF_NAME[leaf.name];
  const eventSchema = /^#\/components\/schemas\/(EventDto|\w+Event)\/properties\/id\//.test(`${leaf.at}/`);
  return eventSchema || (leaf.holder && 'type' in leaf.holder && 'data' in leaf.holder) ? 'event' : 'uuid';
}

let t: TestApp;
let doc: Json;

beforeAll(async () => {
  t = await sharedTestApp({ ...internalEnv, BASE_URL: '' });
  doc = (await servedDocument(t)).doc;
});

describe('example ids have the shape of the ids the server issues', () => {
  it('each pattern matches what this server issues for its kind', async () => {
    const firm = await createFirm(t.app);
    const callId = nextCallId();
    const ingested = await ingestOk(t, firm.orgId, callId, fullCallDocument());
    const key = firm.keys['read-update-leads'];
    // Listable once every older transaction of the cluster (another test file's too) has ended.
    await firmEventsListable(t, firm.orgId);
    const events = await t.get('/v1/events', { key });
    const account = await t.get('/v1/account', { key });
    const simulated = await simulateTestCall(t, (await createTestKeys(t, firm.orgId))['read-update-leads']);
    // An endpoint made as the dashboard makes one (nothing it subscribes to happens here, so nothing is sent to it).
    const made = await t.app
      .get(WebhookEndpointsService)
      .create({ orgId: firm.orgId, url: 'https://hooks.example.com/rx', eventTypes: 'lead.updated' });
    const endpoints = await t.get('/v1/webhook-endpoints', { key });
    const issued: [Kind, string][] = [
      ['event', events.body.events[0].id],
      ['lead', ingested.lead_id],
      ['lead', simulated.lead_id!],
      ['call', simulated.call_id],
      ['uuid', account.body.org.id],
      ['uuid', account.body.api_key.id],
      ['uuid', account.headers.get('x-request-id')!],
      ['uuid', endpoints.body.endpoints[0].id],
      ['uuid', randomUUID()],
      // Made as recording-links.service.ts makes it (a real one needs a stored recording).
      ['linkToken', randomBytes(32).toString('base64url')],
      ['keyPrefix', account.body.api_key.prefix],
      ['keyLast4', account.body.api_key.last4],
      ['keyLast4', key.slice(-4)],
      ['secretLast4', endpoints.body.endpoints[0].secret_last4],
      ['secretLast4', made.secret.slice(-4)],
    ];
    expect(account.body.api_key.last4).toBe(key.slice(-4));
    expect(endpoints.body.endpoints[0].secret_last4).toBe(made.secret.slice(-4));
    expect(issued.filter(([kind, id]) => !SHAPES[kind].test(id))).toEqual([]);
    expect(new Set(issued.map(([kind]) => kind))).toEqual(new Set(Object.keys(SHAPES)));
  });

  it('every id in an example (schemas, parameters, headers, responses, webhooks) has its kind’s shape', () => {
    const leaves = exampleLeaves(doc).filter((leaf) => typeof leaf.value === 'string');
    const wrong: string[] = [];
    const checked: Record<string, number> = {};
    const check = (at: string, kind: Kind, id: string) => {
      checked[kind] = (checked[kind] ?? 0) + 1;
      if (!SHAPES[kind].test(id)) wrong.push(`${at}: ${JSON.stringify(id)} is not a ${kind} id as the server issues them`);
    };
    for (const leaf of leaves) {
      const value = leaf.value as string;
      const kind = kindOf(leaf);
      if (kind) check(leaf.at, kind, value);
      else for (const [pattern, embedded] of EMBEDDED) for (const m of value.matchAll(pattern)) check(leaf.at, embedded, m[1] ?? m[0]);
    }
    expect(wrong).toEqual([]);
    // Each kind is met (the walk reaches parameters, headers, schemas and response bodies), the common ones many times.
    expect(Object.keys(checked).sort()).toEqual(Object.keys(SHAPES).sort());
    expect(checked.event).toBeGreaterThan(10);
    expect(checked.uuid).toBeGreaterThan(100);
  });

  it('the walk names what it checks: a wrong id in a parameter, a header, a schema and a response body is found', () => {
    const sample = {
      paths: { '/x/{lead_id}': { get: { parameters: [{ name: 'lead_id', in: 'path', schema: { example: 'lead_1' } }] } } },
      components: {
        headers: { RequestId: { schema: { type: 'string' }, example: 'req-1' } },
        schemas: { CallCompletedEvent: { properties: { id: { example: 'evt_1' }, data: { example: { call_id: 'c1' } } } } },
      },
      webhooks: { x: { post: { responses: { 200: { content: { j: { example: { changed_by: { id: 'key_1' } } } } } } } } },
    };
    const kinds = exampleLeaves(sample).map((leaf) => [leaf.value, kindOf(leaf)]);
    expect(kinds).toEqual([
      ['lead_1', 'lead'],
      ['req-1', 'uuid'],
      ['evt_1', 'event'],
      ['c1', 'call'],
      ['key_1', 'uuid'],
    ]);
  });
});
