import { ApiKeyService } from '../../src/auth';
import { SCOPES } from '../../src/common/http/scopes';
import { createFirm, type TestFirm } from '../support/factories';
import { insertKeyWithScopes } from '../support/keys';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

/**
 * Keys and scopes as a request meets them: 401 for a missing, malformed, unknown or revoked key (never echoed), 403
 * for a missing scope. The key rules behind them (hashing, expiry, the per-firm limit, last_used_at, permission sets)
 * are tested on ApiKeyService: test/medium/settings/api-keys.cases.ts.
 */
describe('API keys and scopes', () => {
  let t: TestApp;
  let firm: TestFirm;
  beforeAll(async () => {
    t = await sharedTestApp();
    firm = await createFirm(t.app);
  });

  const expectUnauthorized = (r: { status: number; body: any; headers: Headers }) => {
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('unauthorized');
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  };

  it('refuses a missing, malformed or unknown key with 401', async () => {
    expectUnauthorized(await t.get('/v1/account'));
    expectUnauthorized(await t.get('/v1/account', { headers: { authorization: 'Basic abc' } }));
    expectUnauthorized(await t.get('/v1/account', { headers: { authorization: 'Bearer svc_live_short' } }));
    expectUnauthorized(await t.get('/v1/account', { headers: { authorization: 'Bearer sk_live_' + 'a'.repeat(43) } }));
    expectUnauthorized(await t.get('/v1/account', { key: 'svc_live_' + 'A'.repeat(43) }));
    // Right prefix, wrong rest: the hash comparison must refuse it.
    const k = firm.keys.read;
    expectUnauthorized(await t.get('/v1/account', { key: k.slice(0, -4) + (k.endsWith('AAAA') ? 'BBBB' : 'AAAA') }));
  });

  it('never echoes the key in an error body', async () => {
    const bogus = 'svc_live_' + 'Z'.repeat(43);
    const r = await t.get('/v1/account', { key: bogus });
    expect(r.text).not.toContain(bogus);
    expect(r.text).not.toContain('ZZZZ');
  });

  it('revocation takes effect on the next request and is audited', async () => {
    const svc = t.app.get(ApiKeyService);
    const { key, summary } = await svc.create({ orgId: firm.orgId, name: 'to revoke', set: 'read' });
    expect((await t.get('/v1/account', { key })).status).toBe(200);
    await svc.revoke(summary.id);
    expectUnauthorized(await t.get('/v1/account', { key }));
    const audit = await t.sql(`SELECT action, actor_type FROM audit_log WHERE $1 = ANY(resource_ids) ORDER BY id`, [summary.id]);
    expect(audit).toEqual([
      { action: 'api_key.created', actor_type: 'owner' },
      { action: 'api_key.revoked', actor_type: 'owner' },
    ]);
  });

  describe('scope matrix for the endpoints of the foundation', () => {
    const endpoints: [string, string][] = [
      ['/v1/account', 'org:read'],
      ['/v1/receptionist', 'receptionist:read'],
    ];
    it.each(endpoints)('%s: every permission set gets 200', async (path) => {
      for (const key of Object.values(firm.keys)) {
        const r = await t.get(path, { key });
        expect(r.status).toBe(200);
      }
    });
    it.each(endpoints)('%s: a key without %s gets 403 insufficient_scope', async (path, scope) => {
      const { key } = await insertKeyWithScopes(
        t,
        firm.orgId,
        SCOPES.filter((s) => s !== scope),
      );
      const r = await t.get(path, { key });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'insufficient_scope', status: 403, required_scope: scope });
    });
  });
});
