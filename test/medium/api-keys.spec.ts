import { AccountService } from '../../src/account';
import { ApiKeyService } from '../../src/auth';
import { newMediumService, type MediumService } from '../support/medium';

/** ApiKeyService (the dashboard's key actions and the bearer check) against the real database, without HTTP. */
describe('ApiKeyService', () => {
  let m: MediumService<ApiKeyService>;
  let n = 0;

  beforeAll(async () => {
    m = await newMediumService(ApiKeyService);
  });
  afterAll(() => m.close());

  const newOrg = async () =>
    (await m.module.get(AccountService).createOrg({ name: `Keys ${process.pid} ${++n}`, timezone: 'America/Chicago' })).id;
  const create = (orgId: string, opts: { expiresAt?: Date } = {}) => m.sut.create({ orgId, name: `key ${++n}`, set: 'read', ...opts });
  const auditActions = async (keyId: string) =>
    (await m.sql(`SELECT action FROM audit_log WHERE $1 = ANY(resource_ids) ORDER BY id`, [keyId])).map((r) => r.action as string);

  it('create: the key is shown once, stored only as its hash, and audited', async () => {
    const orgId = await newOrg();
    const { key, summary } = await create(orgId);
    expect(key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(summary).toEqual(
      expect.objectContaining({ org_id: orgId, status: 'active', permission_set: 'read', last4: key.slice(-4), revoked_at: null }),
    );
    const [row] = await m.sql(`SELECT * FROM api_keys WHERE id = $1`, [summary.id]);
    expect(JSON.stringify(row)).not.toContain(key.slice('svc_live_'.length + 8));
    expect(await auditActions(summary.id)).toEqual(['api_key.created']);
    expect((await m.sut.authenticate(`Bearer ${key}`)).keyId).toBe(summary.id);
  });

  it('at most 10 active keys: revoked and expired keys do not count', async () => {
    const orgId = await newOrg();
    const expiring = await create(orgId, { expiresAt: new Date(m.clock.now().getTime() + 3_600_000) });
    const keys = [expiring];
    for (let i = 0; i < 9; i++) keys.push(await create(orgId));
    await expect(create(orgId)).rejects.toThrow(/already has 10 active keys/);

    m.clock.advance(2 * 3_600_000);
    expect((await m.sut.list(orgId)).find((k) => k.id === expiring.summary.id)?.status).toBe('expired');
    keys.push(await create(orgId));
    await expect(create(orgId)).rejects.toThrow(/already has 10 active keys/);

    await m.sut.revoke(keys[1].summary.id);
    await create(orgId);
    await expect(create(orgId)).rejects.toThrow(/already has 10 active keys/);
  });

  it('the limit holds under concurrent creates (the firm row is locked)', async () => {
    const orgId = await newOrg();
    const results = await Promise.allSettled(Array.from({ length: 14 }, () => create(orgId)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const [{ active }] = await m.sql(`SELECT count(*)::int AS active FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL`, [orgId]);
    expect(active).toBe(10);
  });

  it('revoke: the key stops authenticating at once; revoking again changes nothing', async () => {
    const orgId = await newOrg();
    const { key, summary } = await create(orgId);
    m.clock.freeze();
    const revoked = await m.sut.revoke(summary.id);
    expect({ status: revoked.status, revokedAt: revoked.revoked_at }).toEqual({
      status: 'revoked',
      revokedAt: m.clock.now().toISOString(),
    });
    await expect(m.sut.authenticate(`Bearer ${key}`)).rejects.toMatchObject({ code: 'unauthorized' });

    m.clock.advance(60_000);
    expect((await m.sut.revoke(summary.id)).revoked_at).toBe(revoked.revoked_at);
    expect(await auditActions(summary.id)).toEqual(['api_key.created', 'api_key.revoked']);
  });

  it('authenticateNow: a principal cached for a keyed read comes back without a promise; a lookup is a promise; a malformed key throws at once', async () => {
    const orgId = await newOrg();
    const { key, summary } = await create(orgId);
    const first = m.sut.authenticateNow(`Bearer ${key}`, true);
    expect(first).toBeInstanceOf(Promise);
    expect((await first).keyId).toBe(summary.id);
    const cached = m.sut.authenticateNow(`Bearer ${key}`, true);
    expect(cached).not.toBeInstanceOf(Promise);
    expect((cached as Awaited<typeof first>).keyId).toBe(summary.id);
    // Without `cached` (every route that does not re-check the key in its own statement) the key is always looked up.
    expect(m.sut.authenticateNow(`Bearer ${key}`)).toBeInstanceOf(Promise);
    expect(() => m.sut.authenticateNow('Bearer nope', true)).toThrow(expect.objectContaining({ code: 'unauthorized' }) as Error);
  });

  it('ten live keys leave room for ten test keys, and the eleventh of either mode is refused', async () => {
    const orgId = await newOrg();
    for (let i = 0; i < 10; i++) await create(orgId);
    await expect(create(orgId)).rejects.toMatchObject({ code: 'invalid_request' });
    for (let i = 0; i < 10; i++) await m.sut.create({ orgId, name: `test ${i}`, set: 'read', livemode: false });
    await expect(m.sut.create({ orgId, name: 'test 11', set: 'read', livemode: false })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    const listed = await m.sut.list(orgId);
    expect(listed.filter((k) => k.mode === 'live')).toHaveLength(10);
    expect(listed.filter((k) => k.mode === 'test')).toHaveLength(10);
  });

  it('revoking an unknown key is not found', async () => {
    await expect(m.sut.revoke('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'not_found' });
  });
});
