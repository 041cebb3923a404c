import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { escapePointer, servedDocument, type ServedDocument } from '../support/served-document';
import { sharedTestApp } from '../support/shared-app';
import { type TestApp } from '../support/test-app';
import { createTestKeys, simulateTestCall } from '../support/test-mode';

/**
 * The document's request schema for every JSON body accepts exactly the
 * bodies the service accepts: a table of bodies per operation (valid ones,
 * and each rule broken once) goes through both the served document (ajv on
 * the schema as served, not the closed copy the conformance check reads) and
 * the service, and any disagreement fails. Each case is the exact JSON text
 * sent (so `__proto__` and lone surrogates reach both as they are); `null`
 * for no body at all.
 *
 * One difference is by design and named: a text holding a lone UTF-16
 * surrogate is not Unicode text, which no portable pattern can state (see
 * string-safety.ts); the service refuses it and the document says so in
 * words. So does a test call's number that has the form but is not in
 * service (libphonenumber's numbering plans), stated in its description.
 */
type Case = string | null;
const json = (v: unknown): string => JSON.stringify(v);
const LONE_SURROGATE = /\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i;

const PATCH_LEAD: Case[] = [
  // Accepted: each member alone, together, null to clear, the bounds, characters counted as code points.
  json({ status: 'contacted' }),
  json({ status: 'signed', expected_status: 'contacted' }),
  json({ status: 'rejected', expected_status: 'new', external_id: 'CRM-1', status_reason: 'Went elsewhere.' }),
  json({ external_id: 'CRM-1042' }),
  json({ external_id: null }),
  json({ status_reason: null }),
  json({ status_reason: 'Signed on May 2.\nCall back in June.' }),
  json({ external_id: 'x'.repeat(200) }),
  json({ external_id: '\u{1F600}'.repeat(200) }),
  json({ status_reason: 'y'.repeat(500) }),
  json({ external_id: 'tab\there', status_reason: 'é' }),
  // Refused: nothing to change, expected_status alone, values outside the rules, unknown members.
  json({}),
  json({ expected_status: 'new' }),
  json({ expected_status: 'contacted', foo: 1 }),
  json({ status: 'new' }),
  json({ status: 'archived' }),
  json({ status: null }),
  json({ status: 'Contacted' }),
  json({ status: 'contacted', expected_status: 'archived' }),
  json({ status: 'contacted', expected_status: null }),
  json({ status: 'contacted', foo: 1 }),
  json({ status: 'contacted', Status: 'signed' }),
  json({ status: ['contacted'] }),
  json({ external_id: '' }),
  json({ external_id: 'x'.repeat(201) }),
  json({ external_id: '\u{1F600}'.repeat(201) }),
  json({ external_id: 'a\nb' }),
  json({ external_id: 'a\rb' }),
  json({ external_id: 'a\u000bb' }),
  json({ external_id: 'a\u000cb' }),
  json({ external_id: 'a\u0085b' }),
  json({ external_id: 'a\u2028b' }),
  json({ external_id: 'a\u2029b' }),
  json({ external_id: 'a\u0000b' }),
  json({ external_id: 1042 }),
  json({ external_id: {} }),
  json({ status_reason: '' }),
  json({ status_reason: 'y'.repeat(501) }),
  json({ status_reason: 'a\u0000b' }),
  json({ status_reason: false }),
  '{"__proto__":{"status":"contacted"},"status":"contacted"}',
  '{"constructor":1,"status":"contacted"}',
  '{"external_id":"\\ud800"}',
  json([]),
  json([{ status: 'contacted' }]),
  json('contacted'),
  json(1),
  'null',
  null,
];

const SIMULATE_CALL: Case[] = [
  // Accepted: no body, an empty one, each member, each category and outcome, an unanswered call as the spec allows it.
  null,
  json({}),
  json({ recording: false }),
  ...['new_injury_lead', 'existing_client', 'judge_court', 'sales', 'wrong_number', 'other'].map((category) =>
    json({ category, recording: false }),
  ),
  ...['connected', 'declined', 'caller_gone', 'no_answer', 'not_attempted'].map((outcome) => json({ outcome, recording: false })),
  json({ answered: false }),
  json({ answered: false, outcome: 'not_attempted', lead: false, recording: false }),
  json({ answered: true, lead: true, category: 'sales', recording: false }),
  json({ lead: false, recording: false }),
  json({ caller_number: '+13125550142', recording: false }),
  json({ caller_number: '(312) 555-0177 x12', recording: false }),
  json({ caller_number: '+44 20 7183 8750', recording: false }),
  // Refused: unknown members and values, wrong types, null, and what an unanswered call cannot have.
  json({ colour: 'blue' }),
  json({ category: 'divorce' }),
  json({ category: 'SALES' }),
  json({ category: null }),
  json({ outcome: 'transferred' }),
  json({ answered: 'yes' }),
  json({ answered: null }),
  json({ lead: null }),
  json({ recording: 1 }),
  json({ caller_number: '555' }),
  json({ caller_number: 'call me' }),
  json({ caller_number: 'tel:+13125550142' }),
  json({ caller_number: 3125550100 }),
  json({ caller_number: '+1 555 555 5555' }),
  json({ answered: false, outcome: 'connected' }),
  json({ answered: false, lead: true }),
  json({ answered: false, category: 'sales' }),
  '{"__proto__":{"recording":false}}',
  json([]),
  json('call'),
  'null',
];

const REPROCESS_CALL: Case[] = [
  null,
  json({}),
  json({ lead: false }),
  json({ lead: true }),
  json({ lead: null }),
  json({ lead: 'true' }),
  json({ lead: true, x: 1 }),
  json([]),
  'null',
];

let t: TestApp;
let served: ServedDocument;
let firm: TestFirm;
let testKey: string;
let leadId: string;
let testCallId: string;

/** The operations with a JSON request body, and how each case of their table is sent. */
const tables = () => ({
  'PATCH /v1/leads/{lead_id}': { cases: PATCH_LEAD, path: `/v1/leads/${leadId}`, key: firm.keys['read-update-leads'] },
  'POST /v1/test-helpers/calls': { cases: SIMULATE_CALL, path: '/v1/test-helpers/calls', key: testKey },
  'POST /v1/test-helpers/calls/{call_id}/reprocess': {
    cases: REPROCESS_CALL,
    path: `/v1/test-helpers/calls/${testCallId}/reprocess`,
    key: testKey,
  },
});

/** The document's verdict: no body where it is optional, or a body its schema accepts, as any validator of it would read it. */
function documentAccepts(label: string, body: Case): { accepts: boolean; problems: string[] } {
  const [method, path] = label.split(' ');
  const at = `#/paths/${escapePointer(path)}/${method.toLowerCase()}/requestBody`;
  const requestBody = served.doc.paths[path][method.toLowerCase()].requestBody;
  if (body === null) return { accepts: requestBody.required !== true, problems: ['no body, and the body is required'] };
  const problems = served.validateAsServed(`${at}/content/application~1json/schema`, JSON.parse(body));
  return { accepts: problems.length === 0, problems };
}

/** The service's verdict: the body was taken (any answer but 400: a 409 is a conflict of state, not of the body). */
async function serviceAccepts(
  method: string,
  path: string,
  key: string,
  body: Case,
): Promise<{ accepts: boolean; status: number; detail: string }> {
  const r = await t.request(method, path, {
    key,
    ...(body === null ? {} : { rawBody: body, headers: { 'content-type': 'application/json' } }),
  });
  if (r.status >= 500 || ![200, 201, 400, 409].includes(r.status))
    throw new Error(`${method} ${path} ${body}: answered ${r.status} ${r.text}`);
  return { accepts: r.status !== 400, status: r.status, detail: r.status === 400 ? String(r.body.detail) : '' };
}

describe('every JSON request body: the document accepts exactly what the service accepts', () => {
  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    served = await servedDocument(t);
    firm = await createFirm(t.app);
    leadId = (await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id;
    testKey = (await createTestKeys(t, firm.orgId))['read-update-leads'];
    testCallId = (await simulateTestCall(t, testKey)).call_id;
  });

  it('the document has a JSON request body only where this table has cases, and /internal is not in it', () => {
    const withBody = Object.entries<any>(served.doc.paths).flatMap(([path, item]) =>
      Object.entries<any>(item)
        .filter(([, op]) => op.requestBody?.content?.['application/json'])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(withBody.sort()).toEqual(Object.keys(tables()).sort());
    expect(Object.keys(served.doc.paths).filter((p) => p.startsWith('/internal'))).toEqual([]);
  });

  it.each(['PATCH /v1/leads/{lead_id}', 'POST /v1/test-helpers/calls', 'POST /v1/test-helpers/calls/{call_id}/reprocess'])(
    '%s: each body of the table, valid and invalid, gets the same verdict from both',
    async (label) => {
      const table = tables()[label as keyof ReturnType<typeof tables>];
      const disagreements: string[] = [];
      const named: string[] = [];
      let accepted = 0;
      for (const body of table.cases) {
        const doc = documentAccepts(label, body);
        const service = await serviceAccepts(label.split(' ')[0], table.path, table.key, body);
        if (service.accepts) accepted++;
        if (doc.accepts === service.accepts) continue;
        // The two named differences: the document states them in words; the service refuses.
        const notUnicode = body !== null && LONE_SURROGATE.test(body);
        const notInService = body !== null && /"caller_number":"\+1 555/.test(body);
        if (doc.accepts && !service.accepts && (notUnicode || notInService)) {
          named.push(body!);
          continue;
        }
        disagreements.push(
          `${body}: document ${doc.accepts ? 'accepts' : `refuses (${doc.problems[0]})`}, service ${service.status} ${service.detail}`,
        );
      }
      expect(disagreements).toEqual([]);
      // Both verdicts occur: the table is not all of one kind.
      expect(accepted).toBeGreaterThan(0);
      expect(accepted).toBeLessThan(table.cases.length);
      for (const body of named) expect(body).toMatch(/\\ud800|"\+1 555/);
    },
  );

  it('says in words what no pattern states: lone surrogates, and a test call number must be in service', () => {
    expect(served.doc.info.description).toMatch(/lone UTF-16 surrogate/);
    expect(served.doc.components.schemas.SimulateCallDto.properties.caller_number.description).toMatch(/in service.*400/);
  });
});
