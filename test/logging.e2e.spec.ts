import { PassThrough } from 'node:stream';
import { createFirm, type TestFirm } from './support/factories';
import { waitFor } from './support/receiver';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from './support/test-app';

describe('request logs', () => {
  let t: TestApp;
  let firm: TestFirm;
  const lines: string[] = [];
  beforeAll(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
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
});
