import { typesOf, walkDocument } from '../support/doc-walk';
import { createFirm, type TestFirm } from '../support/factories';
import { servedDocument, type ServedDocument } from '../support/served-document';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

/**
 * What the spec types as an integer is documented `integer` (with its bounds
 * and a numeric default for query parameters); `number` is left only where
 * the spec has decimals. Validation of the query text is unchanged.
 */
type Json = Record<string, any>;

let t: TestApp;
let served: ServedDocument;
let doc: Json;
let firm: TestFirm;

beforeAll(async () => {
  t = await sharedTestApp();
  served = await servedDocument(t);
  doc = served.doc;
  firm = await createFirm(t.app);
});

/** Fields the spec types `number`: the only ones that may carry decimals. */
const DECIMAL_FIELDS = ['start_s', 'intake_completeness', 'completeness'];
/** Fields and parameters the spec types integer (Call, handling, Transcript, Account, settings, Webhook delivery, Problem). */
const INTEGER_FIELDS = [
  'duration_s',
  'config_version',
  'trace_version',
  'fires',
  'turn_count',
  'start_turn',
  'next_start_turn',
  'attempt',
  'trial_days_left',
  'version',
  'attempt_count',
  'status_code',
  'duration_ms',
  'retry_after',
  'limit',
];

describe('integers', () => {
  it('no schema is a number except the fields the spec gives decimals; days items and every integer field are integers', () => {
    const numbers: string[] = [];
    const decimals = new Set<string>();
    const notInteger: string[] = [];
    walkDocument(doc, ({ pointer, node, property }) => {
      if (typesOf(node).includes('number')) {
        if (DECIMAL_FIELDS.includes(property ?? '')) decimals.add(property!);
        else numbers.push(pointer);
      }
      if (property && INTEGER_FIELDS.includes(property) && !typesOf(node).includes('integer')) notInteger.push(pointer);
    });
    expect(numbers).toEqual([]);
    expect(notInteger).toEqual([]);
    expect([...decimals].sort()).toEqual([...DECIMAL_FIELDS].sort());
    expect(doc.components.schemas.HoursDto.properties.days.items).toEqual({ type: 'integer', minimum: 0, maximum: 6 });
  });

  it('limit and start_turn parameters are integers with the spec bounds and a numeric default', () => {
    const params: Record<string, Json> = {};
    for (const { label, op } of served.operations())
      for (const p of op.parameters ?? []) if (['limit', 'start_turn'].includes(p.name)) params[`${label} ${p.name}`] = p.schema;
    const page = (dflt: number) => ({ type: 'integer', minimum: 1, maximum: 100, default: dflt });
    expect(params).toEqual({
      'GET /v1/calls limit': page(20),
      'GET /v1/leads limit': page(20),
      'GET /v1/webhook-deliveries limit': page(20),
      'GET /v1/events limit': page(50),
      'GET /v1/calls/{call_id}/transcript limit': { type: 'integer', minimum: 1, maximum: 500 },
      'GET /v1/calls/{call_id}/transcript start_turn': { type: 'integer', minimum: 0, maximum: expect.any(Number), default: 0 },
    });
    const typed = JSON.stringify(Object.values(params));
    expect(typed).not.toContain('pattern');
  });

  it('validation is unchanged: the same 400 for text, signs, decimals, exponents and out-of-range values; plain digits are read', async () => {
    const key = firm.keys.read;
    for (const limit of ['abc', '0', '101', '1000', '1e2', '-1', '2.5', '+5', ' 5', '']) {
      const r = await t.get('/v1/calls', { key, query: { limit } });
      expect([limit, r.status, r.body.errors]).toEqual([
        limit,
        400,
        [{ param: 'limit', message: 'limit must be an integer from 1 to 100' }],
      ]);
    }
    for (const limit of ['1', '020', '100'])
      expect([limit, (await t.get('/v1/calls', { key, query: { limit } })).status]).toEqual([limit, 200]);
    const transcript = await t.get('/v1/calls/call_nope/transcript', { key, query: { start_turn: '-1' } });
    expect(transcript.status).toBe(400);
    expect(transcript.body.param).toBe('start_turn');
  });
});
