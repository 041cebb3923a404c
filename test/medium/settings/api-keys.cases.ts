import { AccountService } from '../../../src/account';
import { ApiKeyService } from '../../../src/auth';
import { cliFailure } from '../../../src/cli/failures';
import { createFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';
import { waitFor } from '../../support/receiver';
import { hold } from '../../support/time';

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

  it("revoke: an id that is no key id, or no key's, is a clear refusal (the CLI words it, exit 1), not an unexpected error", async () => {
    const notAnId = await m.sut.revoke('nope').catch((e: unknown) => e);
    expect(cliFailure(notAnId)).toEqual({ message: '"nope" is not an API key id', exitCode: 1 });
    const unknown = await m.sut.revoke('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(cliFailure(unknown)).toEqual({ message: 'no API key with id "00000000-0000-4000-8000-000000000000"', exitCode: 1 });
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

  it('stores only a hash of each key, with its prefix and last4 to recognise it', async () => {
    const firm = await createFirm(m.module);
    const [row] = await m.sql('SELECT prefix, last4, key_hash FROM api_keys WHERE id = $1', [firm.keyIds.read]);
    expect(firm.keys.read).toMatch(/^svc_live_[A-Za-z0-9_-]{43,}$/);
    expect(row.prefix).toBe(firm.keys.read.slice(9, 17));
    expect(row.last4).toBe(firm.keys.read.slice(-4));
    expect(Buffer.from(row.key_hash).toString('utf8')).not.toContain(firm.keys.read.slice(9));
    const dump = JSON.stringify(await m.sql('SELECT * FROM api_keys WHERE org_id = $1', [firm.orgId]));
    for (const key of Object.values(firm.keys)) expect(dump).not.toContain(key.slice(9));
  });

  it('an expired key stops authenticating once the clock passes its expiry', async () => {
    const orgId = await newOrg();
    const expiresAt = new Date(m.clock.now().getTime() + 3_600_000);
    const { key } = await create(orgId, { expiresAt });
    expect((await m.sut.authenticate(`Bearer ${key}`)).expiresAt).toEqual(expiresAt);
    m.clock.advance(3_600_000 + 1000);
    await expect(m.sut.authenticate(`Bearer ${key}`)).rejects.toMatchObject({ code: 'unauthorized' });
    // A principal this process cached is not served past its expiry either.
    await expect(Promise.resolve().then(() => m.sut.authenticateNow(`Bearer ${key}`, true))).rejects.toMatchObject({
      code: 'unauthorized',
    });
    m.clock.reset();
  });

  it('maps each permission set to the scopes of the spec', async () => {
    const firm = await createFirm(m.module);
    const scopesOf = async (key: string) => (await m.sut.authenticate(`Bearer ${key}`)).scopes;
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

  it('moves last_used_at at most once a minute, in a write after the use', async () => {
    const orgId = await newOrg();
    const { key, summary } = await create(orgId);
    // Every write of last_used_at to this key, in order (the write follows the use, so it is observed, not awaited).
    const table = `touches_${summary.id.replaceAll('-', '')}`;
    await m.sql(`CREATE TABLE ${table} (at timestamptz, seq serial)`);
    await m.sql(`CREATE FUNCTION log_${table}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO ${table} (at) VALUES (NEW.last_used_at); RETURN NEW; END $$`);
    await m.sql(
      `CREATE TRIGGER log_${table} AFTER UPDATE OF last_used_at ON api_keys FOR EACH ROW WHEN (NEW.id = '${summary.id}') EXECUTE FUNCTION log_${table}()`,
    );
    const touches = async (): Promise<Date[]> => (await m.sql(`SELECT at FROM ${table} ORDER BY seq`)).map((r) => r.at);

    await m.sut.authenticate(`Bearer ${key}`);
    const [first] = await waitFor(async () => ((await touches()).length === 1 ? touches() : null), 'the first use to move last_used_at');
    await m.sut.authenticate(`Bearer ${key}`);
    // Past the second a noted use waits before its write: the second use, within the minute, was not noted.
    await hold(1_500);
    expect(await touches()).toHaveLength(1);
    m.clock.advance(61_000);
    await m.sut.authenticate(`Bearer ${key}`);
    const all = await waitFor(async () => ((await touches()).length >= 2 ? touches() : null), 'the use a minute later to move it');
    // The second use, within the minute, wrote nothing: the writes are the first use's and the later one's.
    expect(all).toHaveLength(2);
    expect(all[1].getTime() - first.getTime()).toBeGreaterThanOrEqual(61_000);
    expect((await m.sut.list(orgId)).find((k) => k.id === summary.id)?.last_used_at).toBe(all[1].toISOString());
    m.clock.reset();
  });

  it('revoking an unknown key is not found', async () => {
    await expect(m.sut.revoke('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'not_found' });
  });
});
