import { ApiKeyService } from '../src/auth';
import { SCOPES } from '../src/common/http/scopes';
import { createFirm, type TestFirm } from './support/factories';
import { insertKeyWithScopes } from './support/keys';
import { waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';

describe('API keys and scopes', () => {
  let t: TestApp;
  let firm: TestFirm;
  beforeAll(async () => {
    t = await startTestApp();
    firm = await createFirm(t.app);
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

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

  it('stores only a hash, with prefix and last4', async () => {
    const [row] = await t.sql('SELECT prefix, last4, key_hash FROM api_keys WHERE id = $1', [firm.keyIds.read]);
    expect(firm.keys.read).toMatch(/^svc_live_[A-Za-z0-9_-]{43,}$/);
    expect(row.prefix).toBe(firm.keys.read.slice(9, 17));
    expect(row.last4).toBe(firm.keys.read.slice(-4));
    expect(Buffer.from(row.key_hash).toString('utf8')).not.toContain(firm.keys.read.slice(9));
    const dump = JSON.stringify(await t.sql('SELECT * FROM api_keys'));
    for (const key of Object.values(firm.keys)) expect(dump).not.toContain(key.slice(9));
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

  it('an expired key is refused once the clock passes its expiry', async () => {
    const svc = t.app.get(ApiKeyService);
    const expiresAt = new Date(t.clock.now().getTime() + 3600_000);
    const { key } = await svc.create({ orgId: firm.orgId, name: 'short-lived', set: 'read', expiresAt });
    const ok = await t.get('/v1/account', { key });
    expect(ok.status).toBe(200);
    expect(ok.body.api_key.expires_at).toBe(expiresAt.toISOString());
    t.clock.advance(3600_000 + 1000);
    expectUnauthorized(await t.get('/v1/account', { key }));
  });

  it('allows at most 10 active keys per firm', async () => {
    const other = await createFirm(t.app); // 4 keys
    const svc = t.app.get(ApiKeyService);
    const made = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => svc.create({ orgId: other.orgId, name: `k${i}`, set: 'read' })),
    );
    expect(made.filter((m) => m.status === 'fulfilled')).toHaveLength(6);
    const refused = made.find((m) => m.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason.message)).toMatch(/10 active keys/);
    // Revoking one frees a place.
    await svc.revoke(other.keyIds.read);
    const again = await svc.create({ orgId: other.orgId, name: 'again', set: 'read' });
    expect(again.key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(again.summary).toMatchObject({ name: 'again', revoked_at: null });
  });

  it('moves last_used_at without writing on every request', async () => {
    const { key, summary } = await t.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'usage', set: 'read' });
    // Every write of last_used_at to this key, in order (the touch runs after the answer, so it is observed, not awaited).
    await t.sql(`CREATE TABLE touches (at timestamptz, seq serial)`);
    await t.sql(`CREATE FUNCTION log_touch() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO touches (at) VALUES (NEW.last_used_at); RETURN NEW; END $$`);
    await t.sql(
      `CREATE TRIGGER log_touch AFTER UPDATE OF last_used_at ON api_keys FOR EACH ROW WHEN (NEW.id = '${summary.id}') EXECUTE FUNCTION log_touch()`,
    );
    const touches = async (): Promise<Date[]> => (await t.sql('SELECT at FROM touches ORDER BY seq')).map((r) => r.at);

    await t.get('/v1/account', { key });
    const [first] = await waitFor(
      async () => ((await touches()).length === 1 ? touches() : null),
      'the first request to move last_used_at',
    );
    await t.get('/v1/account', { key });
    t.clock.advance(61_000);
    await t.get('/v1/account', { key });
    const all = await waitFor(async () => ((await touches()).length >= 2 ? touches() : null), 'the request a minute later to move it');
    // The second request, within the minute, wrote nothing: the writes are the first request's and the later one's.
    expect(all).toHaveLength(2);
    expect(all[1].getTime() - first.getTime()).toBeGreaterThanOrEqual(61_000);
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

  it('maps each permission set to the scopes of the spec', async () => {
    const scopesOf = async (key: string) => (await t.get('/v1/account', { key })).body.api_key.scopes;
    const base = ['org:read', 'receptionist:read', 'calls:read', 'leads:read', 'webhooks:read', 'webhooks:test'];
    const full = [
      'org:read',
      'receptionist:read',
      'calls:read',
      'calls:transcript',
      'calls:recording',
      'leads:read',
      'leads:narrative',
      'webhooks:read',
      'webhooks:test',
    ];
    expect(await scopesOf(firm.keys['read-no-transcripts'])).toEqual(base);
    expect(await scopesOf(firm.keys['read-no-transcripts-update-leads'])).toEqual([...base.slice(0, 4), 'leads:write', ...base.slice(4)]);
    expect(await scopesOf(firm.keys.read)).toEqual(full);
    expect(await scopesOf(firm.keys['read-update-leads'])).toEqual([...full.slice(0, 7), 'leads:write', ...full.slice(7)]);
  });
});
