import { IDS_PATTERN } from '../../src/calls';
import { QUERY_DATE_TIME_PATTERN } from '../../src/common/instant';
import { PHONE_FORM_PATTERN } from '../../src/common/phone';
import { TEXT_PATTERN } from '../../src/common/validation/string-safety';
import { internalEnv } from '../support/call-documents';
import { createFirmWithData, type FirmWithData } from '../support/firm-data';
import { Receiver } from '../support/receiver';
import { escapePointer, servedDocument, type ServedDocument } from '../support/served-document';
import { sharedTestApp } from '../support/shared-app';
import { type TestApp } from '../support/test-app';
import { createTestKeys, simulateTestCall } from '../support/test-mode';

/**
 * For every operation of the served document, the query values the service
 * accepts are exactly those the document's parameter schema accepts. Cases
 * are generated from each parameter's schema: valid values, invalid values
 * of each kind the schema refuses, boundary values, the parameter repeated,
 * and parameters the operation does not list; each goes to the service and
 * to ajv on the parameter's schema as served, and any disagreement fails.
 *
 * How a query text is read against a schema: as the string it is, except
 * for an integer, whose text is its decimal digits (the document says so);
 * a repeated parameter is no value of a schema that is not an array; a name
 * the operation does not list is refused (the document's description and
 * every 400 say so). Values the schema cannot judge (a `cursor` not issued
 * for these filters, an `after` naming no kept event) are named below: only
 * values the service issued count as valid for them, and any other must be
 * refused with a 400 the parameter's description states.
 */
type Json = Record<string, any>;

/** Parameters whose validity depends on what the service issued, not on the text's form. */
const ISSUED_ONLY = new Set(['cursor', 'after']);

const DATE_TIMES = [
  '2026-11-27T00:00:00Z',
  '2026-11-27T09:30:00.123456789+05:30',
  '2026-11-27T09:30:00-0500',
  '2026-11-27t09:30:00z',
  '2026-11-27 09:30:00,5Z',
  '2026-11-27T09:30Z',
  '2026-11-27T00:00:00',
  '2026-11-27',
  '2024-02-29',
  '2000-02-29T00:00:00Z',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:59:59.9999999-23:59',
  '2026-02-29',
  '1900-02-29',
  '2026-04-31',
  '2026-13-01',
  '0000-01-01',
  '2026',
  '2026-11',
  '+2026-11-27',
  '20261127',
  '2026-W48-5',
  '2026-331',
  '2026-11-27T24:00',
  '2026-11-27T23:59:60Z',
  '2026-11-27T10',
  '2026-11-27T10:00:00+02',
  '2026-11-27T10:00:00+24:00',
  '2026-11-27Z',
  'yesterday',
];
const PHONES = [
  '+13125550123',
  '(312) 555-0123',
  '312.555.0123',
  '1 312 555 0123',
  '+1 (312) 555-0123 ext. 12',
  '(555) 555-5555 x12',
  '+999',
  '+123456789012345',
  '0123456789',
  `+1 (312) ${' '.repeat(80)}555-0177`,
  '+1234567890123456',
  '+0123',
  '555-0123',
  '12',
  'tel:+13125550123',
  '1-800-FLOWERS',
  '312/555-0123',
  '(312) 555-0123 x12.',
];
const UUIDS = [
  '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40',
  '0B9C6F43-5D1E-4C8A-9F2B-7E3D1A6C5B40',
  '0b9c6f43-5d1e-0c8a-0f2b-7e3d1a6c5b40',
  '00000000-0000-0000-0000-000000000000',
  'urn:uuid:0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40',
  '{0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40}',
  '0b9c6f435d1e4c8a9f2b7e3d1a6c5b40',
  '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b4',
  '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b4g',
];
const EVENT_IDS = ['evt_01jd5x8m3q', `evt_${'a'.repeat(64)}`, `evt_${'a'.repeat(65)}`, 'evt_', 'EVT_01jd', 'evt_01JD', 'evt_01-jd'];
const IDS = [
  'call_a',
  'call_a,call_b',
  ' call_a , call_b ',
  Array.from({ length: 50 }, (_, i) => `c${i}`).join(','),
  Array.from({ length: 51 }, (_, i) => `c${i}`).join(','),
  'c'.repeat(500),
  ',',
  'call_a,',
  ',call_a',
  'call_a,,call_b',
  'call_a, ,call_b',
  ' ',
];
/** Every string parameter also meets these. */
const GENERIC = ['', ' ', 'x', 'é', '\u{1F600}', 'a'.repeat(3000), 'a\u0000b', '\u0000', 'a+b c', '%', '100'];

let t: TestApp;
let rx: Receiver;
let served: ServedDocument;
let firm: FirmWithData;
let testKey: string;
let testCallId: string;
/** Values the service issued, by parameter name; a cursor by the path it was issued for. */
const real: Record<string, string[]> = {};
const cursors: Record<string, string> = {};
const issuedFor = (template: string, name: string): string[] => (name === 'cursor' ? [cursors[template]] : (real[name] ?? []));

const isInteger = (s: Json) => s.type === 'integer';

/** The texts to try for a parameter, from its schema alone (and the values the service issued, by name). */
function casesFor(template: string, name: string, schema: Json): string[] {
  const issued = issuedFor(template, name);
  if (isInteger(schema)) {
    const { minimum: min, maximum: max } = schema;
    return [min, max, min - 1, max + 1, 0, 1]
      .map(String)
      .concat(['', '+1', '-0', '-1', '1.0', '1e1', '0x1', ' 1', '1 ', '01', '9'.repeat(30), 'abc']);
  }
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as string[];
    return [...values, ...values.map((v) => v.toUpperCase()), `${values[0]} `, `${values[0]}x`, values[0].slice(0, -1), ...GENERIC];
  }
  if (schema.type !== 'string') throw new Error(`${name}: no cases for a ${String(schema.type)} parameter`);
  const byForm: Record<string, string[]> = {
    [QUERY_DATE_TIME_PATTERN]: DATE_TIMES,
    [PHONE_FORM_PATTERN]: PHONES,
    [TEXT_PATTERN]: [...IDS, ...UUIDS],
    [IDS_PATTERN]: IDS,
  };
  if (schema.format === 'uuid') return [...issued, ...UUIDS, ...GENERIC];
  if (schema.format === 'date-time') return [...DATE_TIMES, ...GENERIC];
  if (typeof schema.pattern === 'string' && schema.pattern.startsWith('^evt_')) return [...issued, ...EVENT_IDS, ...GENERIC];
  if (schema.pattern !== undefined && !(schema.pattern in byForm)) throw new Error(`${name}: no cases for the pattern ${schema.pattern}`);
  return [...issued, ...(byForm[schema.pattern ?? TEXT_PATTERN] ?? []), ...GENERIC];
}

/** The document's verdict on one parameter's texts (more than one: the parameter repeated). */
function documentAccepts(at: string, schema: Json, texts: string[]): boolean {
  if (texts.length !== 1 || schema.type === 'array') return false;
  const [text] = texts;
  const value = isInteger(schema) && /^[0-9]+$/.test(text) ? Number(text) : text;
  return served.validateAsServed(`${at}/schema`, value).length === 0;
}

/** The service's verdict: accepted, or refused with a 400 naming `name`. */
async function serviceAccepts(op: { method: string; path: string; key?: string }, pairs: [string, string][], name: string) {
  const query = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const r = await t.request(op.method, `${op.path}?${query}`, { key: op.key });
  if (r.status === 400 && r.body.param !== name)
    throw new Error(`${op.method} ${op.path}?${query}: a 400 naming ${r.body.param}, not ${name}`);
  if (r.status !== 400 && r.status >= 300)
    throw new Error(`${op.method} ${op.path}?${query}: answered ${r.status} ${r.text.slice(0, 200)}`);
  return { accepts: r.status < 300, detail: r.status === 400 ? String(r.body.detail) : `${r.status}` };
}

/** A request the operation answers with a success when no parameter is sent: real ids, the right key. */
function requestOf(method: string, template: string, op: Json): { method: string; path: string; key?: string } {
  const ids: Record<string, string> = {
    call_id: template.includes('test-helpers') ? testCallId : firm.callIds[0],
    lead_id: firm.leadId,
    event_id: firm.eventId,
    endpoint_id: firm.endpointId,
    delivery_id: firm.deliveryId,
    token: firm.linkToken,
  };
  const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name]);
  const key = op['x-test-mode-only'] ? testKey : op.security?.length ? firm.keys['read-update-leads'] : undefined;
  return { method: method.toUpperCase(), path, key };
}

const operations = () =>
  Object.entries<Json>(served.doc.paths).flatMap(([template, item]) =>
    Object.entries<Json>(item).map(([method, op]) => ({ template, method, op, at: `#/paths/${escapePointer(template)}/${method}` })),
  );

describe('query parameters: the document and the service accept the same values', () => {
  beforeAll(async () => {
    rx = await Receiver.start();
    t = await sharedTestApp({ ...internalEnv, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    served = await servedDocument(t);
    firm = await createFirmWithData(t, rx.url('/hook'));
    testKey = (await createTestKeys(t, firm.orgId))['read-update-leads'];
    testCallId = (await simulateTestCall(t, testKey)).call_id;
    const key = firm.keys['read-update-leads'];
    // Values only the service can issue: a cursor of each unfiltered list, an event this firm's log holds.
    for (const path of ['/v1/calls', '/v1/leads', '/v1/webhook-deliveries']) {
      const next = (await t.get(`${path}?limit=1`, { key })).body.next_cursor;
      if (typeof next !== 'string') throw new Error(`${path}: no second page to take a cursor from`);
      cursors[path] = next;
    }
    real.after = [firm.eventId];
    real.event_id = [firm.eventId];
    real.endpoint_id = [firm.endpointId];
    real.ids = [firm.callIds.join(',')];
    real.call_id = [firm.callIds[0]];
    real.external_id = [firm.externalId];
  }, 60_000);
  afterAll(() => rx.close());

  it('every listed parameter of every operation, value by value', async () => {
    const disagreements: string[] = [];
    const issuedOnly: string[] = [];
    let tried = 0;
    for (const { template, method, op, at } of operations()) {
      const params = ((op.parameters ?? []) as Json[])
        .map((p, i) => ({ p, at: `${at}/parameters/${i}` }))
        .filter(({ p }) => p.in === 'query');
      if (!params.length) continue;
      const request = requestOf(method, template, op);
      for (const { p, at: paramAt } of params) {
        const texts = casesFor(template, p.name, p.schema);
        const runs = [...texts.map((text) => [text]), [texts[0], texts[0]]];
        let accepted = 0;
        for (const values of runs) {
          tried++;
          const doc = documentAccepts(paramAt, p.schema, values);
          const service = await serviceAccepts(
            request,
            values.map((v) => [p.name, v]),
            p.name,
          );
          if (service.accepts) accepted++;
          if (doc === service.accepts) continue;
          const where = `${method.toUpperCase()} ${template} ${p.name}=${JSON.stringify(values.length > 1 ? values : values[0]).slice(0, 80)}`;
          if (ISSUED_ONLY.has(p.name) && doc && !service.accepts && !issuedFor(template, p.name).includes(values[0])) {
            issuedOnly.push(where);
            continue;
          }
          disagreements.push(`${where}: document ${doc ? 'accepts' : 'refuses'}, service ${service.detail}`);
        }
        // Each parameter met values of both verdicts (its issued value, or any valid one, and a refused one).
        expect([`${template} ${p.name}`, accepted > 0, accepted < runs.length]).toEqual([`${template} ${p.name}`, true, true]);
        // A value the schema cannot judge is refused as the parameter's description says.
        if (ISSUED_ONLY.has(p.name)) expect([p.name, p.description]).toEqual([p.name, expect.stringMatching(/400/)]);
      }
    }
    expect(disagreements).toEqual([]);
    expect(issuedOnly.length).toBeGreaterThan(0);
    expect(tried).toBeGreaterThan(500);
  }, 300_000);

  it('a parameter the operation does not list is refused by every operation, as the document says', async () => {
    expect(served.doc.info.description).toMatch(
      /any other is refused with 400 `invalid_request` naming it \(`foo is not a known parameter.`\)/,
    );
    const wrong: string[] = [];
    for (const { template, method, op } of operations()) {
      // HEAD on the recording routes answers 405 to any request: nothing is accepted there to begin with.
      if (method === 'head') continue;
      expect([template, method, op.responses['400']?.description]).toEqual([template, method, expect.stringMatching(/does not list/)]);
      const listed = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => p.name as string);
      const request = requestOf(method, template, op);
      const unknown = ['foo', 'constructor', listed[0] ? listed[0].toUpperCase() : 'Limit', 'limit[]', 'updatedSince'].filter(
        (n) => !listed.includes(n),
      );
      for (const name of unknown) {
        const r = await t.request(request.method, `${request.path}?${encodeURIComponent(name)}=1`, { key: request.key });
        const refused = r.status === 400 && r.body.param === name && r.body.detail === `${name} is not a known parameter.`;
        if (!refused) wrong.push(`${method.toUpperCase()} ${template}?${name}=1: ${r.status} ${r.text.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
