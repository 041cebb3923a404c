import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

describe('foundation', () => {
  let t: TestApp;
  let firm: TestFirm;
  beforeAll(async () => {
    t = await startTestApp();
    firm = await createFirm(t.app);
  });
  afterAll(() => t.close());

  it('GET /v1/health needs no key', async () => {
    const r = await t.get('/v1/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true });
  });

  it('GET /v1/account describes the calling key', async () => {
    const r = await t.get('/v1/account', { key: firm.keys.read });
    expect(r.status).toBe(200);
    expect(r.body.org.id).toBe(firm.orgId);
    expect(r.body.api_key.id).toBe(firm.keyIds.read);
  });
});
