import { randomBytes } from 'node:crypto';
import { createFirm, type TestFirm } from '../support/factories';
import { waitFor } from '../support/receiver';
import { collectLogLines } from '../support/run-log';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';

describe('request logs', () => {
  let t: TestApp;
  let firm: TestFirm;
  const { lines, stream: logStream } = collectLogLines();
  beforeAll(async () => {
    t = await startTestApp({ env: { LOG_LEVEL: 'debug', INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN }, logStream });
    firm = await createFirm(t.app);
  });
  afterAll(() => t.close());

  it('are JSON lines with the request id, and never carry keys, tokens or the Authorization header', async () => {
    const ok = await t.get('/v1/account', { key: firm.keys.read, headers: { 'x-request-id': 'trace-abc-123' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('trace-abc-123');
    const bogus = 'svc_live_' + 'Q'.repeat(43);
    expect((await t.get('/v1/account', { key: bogus })).status).toBe(401);
    expect(
      (
        await t.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/x`, {
          headers: { authorization: 'Bearer wrong-token-wrong-token' },
          body: {},
        })
      ).status,
    ).toBe(401);
    const last = await t.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/x`, {
      headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}` },
      body: {},
    });
    // Access lines are written when the answer has gone out: wait for the last request's line.
    const lastId = last.headers.get('x-request-id');
    await waitFor(
      () => lines.some((l) => l.includes(`"${lastId}"`) && l.includes('"statusCode"')),
      'the access log line of the last request',
    );

    const parsed = lines.map((l) => JSON.parse(l));
    const mine = parsed.filter((l) => l.req?.id === 'trace-abc-123' || l.reqId === 'trace-abc-123');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.some((l) => l.res?.statusCode === 200 && l.req?.url === '/v1/account')).toBe(true);

    const text = lines.join('\n');
    for (const key of Object.values(firm.keys)) expect(text).not.toContain(key.slice(9));
    expect(text).not.toContain('Q'.repeat(20));
    expect(text).not.toContain(TEST_INTERNAL_TOKEN);
    expect(text).not.toContain('wrong-token-wrong-token');
    expect(text.toLowerCase()).not.toContain('bearer');
  });

  it('redact keys in query strings, link tokens on any route, and caller numbers; name the firm and key; keep plain request ids only', async () => {
    const key = firm.keys.read;
    const linkToken = randomBytes(32).toString('base64url');
    const responses = [
      await t.get(`/v1/calls?api_key=${key}`),
      await t.get(`/v1//recordings/${linkToken}`),
      await t.get('/v1/calls', { key, query: { caller_number: '+13125550987' } }),
      await t.get(`/v1/nothing/${key}?key=${key}&secret=whsec_c2VjcmV0c2VjcmV0`),
      await t.get('/v1/account', { key, headers: { 'x-request-id': 'bad id with spaces', traceparent: TRACEPARENT } }),
      await t.get('/v1/account', { key, headers: { 'x-request-id': 'x'.repeat(129) } }),
    ];
    expect(responses[0].status).toBe(401);
    expect(responses[2].status).toBe(200);
    const ids = responses.map((r) => r.headers.get('x-request-id')!);
    expect(ids[4]).not.toBe('bad id with spaces');
    expect(ids[5]).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => ids.every((id) => lines.some((l) => l.includes(`"${id}"`))), 'the access lines of every request');

    const text = lines.join('\n');
    expect(text).not.toContain(key.slice(9));
    expect(text).not.toContain(linkToken);
    expect(text).not.toContain('3125550987');
    expect(text).not.toContain('whsec_c2Vj');
    const byId = (id: string) => lines.map((l) => JSON.parse(l)).find((l) => l.req?.id === id);
    expect(byId(ids[0]).req.url).toBe('/v1/calls?api_key=[REDACTED]');
    expect(byId(ids[1]).req.url).toBe('/v1//recordings/[REDACTED]');
    expect(byId(ids[2]).req.url).toBe('/v1/calls?caller_number=[REDACTED]');
    expect(byId(ids[2])).toMatchObject({ org_id: firm.orgId, key_id: expect.any(String) });
    expect(byId(ids[0]).org_id).toBeUndefined();
    expect(byId(ids[4])).toMatchObject({ trace_id: TRACEPARENT.slice(3, 35), span_id: TRACEPARENT.slice(36, 52), org_id: firm.orgId });
    expect(byId(ids[5]).trace_id).toBeUndefined();
  });
});

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
