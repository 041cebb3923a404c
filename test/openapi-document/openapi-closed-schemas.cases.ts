import { ConformanceError } from '../support/conformance';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

/**
 * The conformance check (test/support/conformance.ts) reads every object
 * schema of the served document closed: a member the document does not list
 * fails the test that received it, while free-form maps stay open.
 */
let t: TestApp;
let firm: TestFirm;

beforeAll(async () => {
  t = await sharedTestApp();
  firm = await createFirm(t.app);
});

describe('the conformance check reads every object schema closed', () => {
  it('refuses a member the document does not list, at the top of a body and nested, and keeps accepting the real answer', async () => {
    const conformance = await t.conformance();
    const real = await t.get('/v1/account', { key: firm.keys.read });
    expect(real.status).toBe(200);
    const check = (body: unknown) => () => conformance.check('GET', '/v1/account', { ...real, body });
    expect(check(real.body)).not.toThrow();
    expect(check({ ...real.body, surprise: 1 })).toThrow(ConformanceError);
    expect(check({ ...real.body, surprise: 1 })).toThrow(/unevaluated properties/);
    expect(check({ ...real.body, setup: { ...real.body.setup, surprise: true } })).toThrow(/\/setup must NOT have unevaluated properties/);

    const missing = await t.get('/v1/leads/lead_nope', { key: firm.keys.read });
    expect(missing.status).toBe(404);
    const problem = (body: unknown) => () => conformance.check('GET', '/v1/leads/lead_nope', { ...missing, body });
    expect(problem(missing.body)).not.toThrow();
    expect(problem({ ...missing.body, current_status: 'new' })).toThrow(/unevaluated properties/);
  });

  it('leaves free-form maps open: a routing rule for a category added later is accepted', async () => {
    const conformance = await t.conformance();
    const real = await t.get('/v1/receptionist', { key: firm.keys.read });
    expect(real.status).toBe(200);
    const [rule] = Object.values<Record<string, unknown>>(real.body.routing);
    expect(rule).toBeDefined();
    const body = { ...real.body, routing: { ...real.body.routing, a_category_added_later: rule } };
    expect(() => conformance.check('GET', '/v1/receptionist', { ...real, body })).not.toThrow();
    const widened = { ...real.body, routing: { ...real.body.routing, a_category_added_later: { ...rule, surprise: 1 } } };
    expect(() => conformance.check('GET', '/v1/receptionist', { ...real, body: widened })).toThrow(/unevaluated properties/);
  });

  it('checks a webhook delivery strictly against its event type: headers, envelope and data', async () => {
    const conformance = await t.conformance();
    const headers = {
      'webhook-id': 'evt_01jd5x8m3q0',
      'webhook-timestamp': '1777644400',
      'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    };
    const event = {
      id: 'evt_01jd5x8m3q0',
      type: 'webhook.test',
      timestamp: '2026-05-01T14:06:40Z',
      org: { id: firm.orgId },
      test: true,
      livemode: true,
      data: { endpoint_id: '0b9c6f43-5d1e-4c8a-9f2b-7e3d1a6c5b40', message: 'A test.' },
    };
    const check =
      (body: object, h: Record<string, string> = headers) =>
      () =>
        conformance.checkWebhook(h, JSON.stringify(body));
    expect(check(event)()).toBe('webhook.test');
    expect(check({ ...event, data: { ...event.data, call_id: 'call_x' } })).toThrow(/\/data must NOT have unevaluated properties/);
    expect(check({ ...event, surprise: 1 })).toThrow(/unevaluated properties/);
    expect(check({ ...event, test: false })).toThrow(/\/test must be equal to constant/);
    expect(check({ ...event, livemode: undefined })).toThrow(/must have required property 'livemode'/);
    expect(check({ ...event, type: 'call.transcribed' })).toThrow(/no entry in the document's webhooks section/);
    expect(check(event, { ...headers, 'webhook-signature': 'v2,abc' })).toThrow(/header webhook-signature does not match/);
    const { 'webhook-timestamp': _omitted, ...noTimestamp } = headers;
    expect(check(event, noTimestamp)).toThrow(/webhook-timestamp is missing/);
  });
});
