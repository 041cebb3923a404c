import { createFirm } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

describe('GET /metrics', () => {
  let t: TestApp;
  const token = 'metrics-token-0123456789';
  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN: token } });
  });
  afterAll(() => t.close());

  it('serves Prometheus text by route template behind METRICS_TOKEN, outside the public document', async () => {
    const firm = await createFirm(t.app);
    expect((await t.get('/v1/calls/call-that-does-not-exist', { key: firm.keys.read })).status).toBe(404);
    expect((await t.get('/v1/account', { key: firm.keys.read })).status).toBe(200);

    expect((await t.get('/metrics')).status).toBe(401);
    expect((await t.get('/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const res = await t.get('/metrics', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/v1\/account",status="200"\} [1-9]/);
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/v1\/calls\/:call_id",status="404"\} [1-9]/);
    expect(res.text).not.toContain('call-that-does-not-exist');
    expect(res.text).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/v1\/account"/);
    expect(res.text).toMatch(/db_pool_connections\{state="total"\} [1-9]/);

    const doc = (await t.get('/v1/openapi.json')).body;
    expect(Object.keys(doc.paths).some((p) => p.includes('metrics'))).toBe(false);
  });
});
