import { ApiKeyService } from '../../src/auth';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

/**
 * The HTTP contract of POST /v1/test-helpers/calls and /reprocess: their answers (201, 200), test keys only (403
 * test_mode_only), the body's rules (400, 415, 413), the rate limit headers. What a simulated call is, the mode it
 * lives in and the events it makes are tested on TestHelpersService: test/medium/database/test-helpers.cases.ts.
 */
describe('test helpers', () => {
  let t: TestApp;
  let firm: TestFirm;
  let testKey: string;

  beforeAll(async () => {
    t = await sharedTestApp();
    firm = await createFirm(t.app);
    testKey = (await t.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'test', set: 'read-update-leads', livemode: false })).key;
  });

  const simulate = (body?: unknown, key = testKey) => t.request('POST', '/v1/test-helpers/calls', { key, body });
  const reprocess = (callId: string, body?: unknown, key = testKey) =>
    t.request('POST', `/v1/test-helpers/calls/${callId}/reprocess`, { key, body });
  const created = async (body?: unknown): Promise<{ call_id: string; lead_id: string | null }> => {
    const r = await simulate(body);
    expect({ status: r.status, body: r.body }).toEqual({
      status: 201,
      body: { call_id: expect.stringMatching(/^call_/), lead_id: r.body.lead_id === null ? null : expect.stringMatching(/^lead_/) },
    });
    return r.body;
  };
  const call = async (id: string) => (await t.get(`/v1/calls/${id}`, { key: testKey })).body.call;
  const callCount = async () => Number((await t.sql(`SELECT count(*) AS n FROM calls WHERE org_id = $1`, [firm.orgId]))[0].n);

  it('simulate answers 201 with the call and its lead; reprocess answers 200 with them; an unknown call is a 404', async () => {
    const { call_id, lead_id } = await created({ recording: false });
    expect(lead_id).toMatch(/^lead_/);
    const r = await reprocess(call_id, { lead: false });
    expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: { call_id, lead_id: null } });
    const again = await reprocess(call_id);
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: { call_id, lead_id: null } });
    const missing = await reprocess('call_nobody', { lead: false });
    expect({ status: missing.status, code: missing.body.code }).toEqual({ status: 404, code: 'not_found' });
  });

  it('a live key gets 403 test_mode_only on both, whatever its scopes, and nothing is written', async () => {
    const { call_id, lead_id } = await created({ recording: false });
    const calls = await callCount();
    for (const key of Object.values(firm.keys)) {
      for (const r of [await simulate({}, key), await reprocess(call_id, { lead: false }, key)]) {
        expect({ status: r.status, code: r.body.code }).toEqual({ status: 403, code: 'test_mode_only' });
      }
    }
    expect(await callCount()).toBe(calls);
    expect((await call(call_id)).lead_id).toBe(lead_id);
  });

  it('any test key will do (no scope needed); answers carry the rate limit', async () => {
    const readOnly = (await t.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'ro', set: 'read-no-transcripts', livemode: false }))
      .key;
    const r = await simulate({ recording: false }, readOnly);
    expect(r.status).toBe(201);
    expect(r.headers.get('ratelimit')).toEqual(expect.any(String));
  });

  it.each([
    [{ colour: 'blue' }, 'colour'],
    [{ category: 'divorce' }, 'category'],
    [{ outcome: 'transferred' }, 'outcome'],
    [{ answered: 'yes' }, 'answered'],
    [{ lead: null }, 'lead'],
    [{ recording: 1 }, 'recording'],
    [{ caller_number: '555' }, 'caller_number'],
    [{ caller_number: 3125550100 }, 'caller_number'],
    [[], 'body'],
  ])('refuses %j with 400 naming %s, writing nothing', async (body, param) => {
    const calls = await callCount();
    const r = await simulate(body);
    expect({ status: r.status, code: r.body.code, param: r.body.param }).toEqual({ status: 400, code: 'invalid_request', param });
    expect(await callCount()).toBe(calls);
  });

  it('reprocess refuses a bad body with 400 naming the member', async () => {
    const { call_id } = await created({ answered: false });
    for (const [body, param] of [
      [{ lead: 'no' }, 'lead'],
      [{ lead: false, extra: 1 }, 'extra'],
    ] as const) {
      const r = await reprocess(call_id, body);
      expect({ status: r.status, code: r.body.code, param: r.body.param }).toEqual({ status: 400, code: 'invalid_request', param });
    }
  });

  it('bodies follow the API’s rules: 415 for another content type, 413 over 16 KiB', async () => {
    for (const path of ['/v1/test-helpers/calls', '/v1/test-helpers/calls/call_x/reprocess']) {
      const xml = await t.request('POST', path, { key: testKey, rawBody: '<call/>', headers: { 'content-type': 'application/xml' } });
      expect({ path, status: xml.status, code: xml.body.code }).toEqual({ path, status: 415, code: 'unsupported_media_type' });
      const big = JSON.stringify({ caller_number: ' '.repeat(16 * 1024) });
      const large = await t.request('POST', path, { key: testKey, rawBody: big, headers: { 'content-type': 'application/json' } });
      expect({ path, status: large.status, code: large.body.code }).toEqual({ path, status: 413, code: 'payload_too_large' });
    }
  });
});
