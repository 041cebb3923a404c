import { runCli } from '../support/cli';
import { runCliInProcess } from '../support/cli-in-process';
import { createFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

/**
 * --mode on key create and endpoint create, and the mode in the lists. The commands' rules run in-process through
 * the CLI's own parser, command table and failure map (a CLI process costs ~2 s of CPU just to load); the compiled
 * CLI proves what is the process's own: the key list printed in text mode, and a --mode usage error's exit code
 * and stderr.
 */
describe('test mode in the dashboard CLI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await sharedTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  });
  const spawned = (args: string[]) => runCli(args, { databaseUrl: t.databaseUrl, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  const cli = (args: string[]) => runCliInProcess(t.app, args);

  it('key create --mode test prints a svc_test_ key that reads as a test key; live stays the default; key list shows each mode', async () => {
    const f = await createFirm(t.app, { publish: false });
    const created = await cli(['key', 'create', '--org', f.slug, '--name', 'sandbox', '--set', 'read', '--mode', 'test', '--json']);
    expect(created.code).toBe(0);
    expect(created.json.key).toMatch(/^svc_test_[A-Za-z0-9_-]{43}$/);
    expect(created.json.prefix).toBe(created.json.key.slice(9, 17));
    const [account, explicitLive, byDefault] = await Promise.all([
      t.get('/v1/account', { key: created.json.key }),
      cli(['key', 'create', '--org', f.slug, '--name', 'live one', '--set', 'read', '--mode', 'live', '--json']),
      cli(['key', 'create', '--org', f.slug, '--name', 'default', '--set', 'read', '--json']),
    ]);
    expect(account.body.api_key.livemode).toBe(false);
    expect(explicitLive.json.key).toMatch(/^svc_live_/);
    expect(byDefault.json.key).toMatch(/^svc_live_/);

    const [listed, text] = await Promise.all([cli(['key', 'list', '--org', f.slug, '--json']), spawned(['key', 'list', '--org', f.slug])]);
    expect(text.code).toBe(0);
    const modes = Object.fromEntries(listed.json.keys.map((k: any) => [k.name, k.mode]));
    expect(modes).toMatchObject({ sandbox: 'test', 'live one': 'live', default: 'live', 'test read': 'live' });
    const line = text.stdout.split('\n').find((l) => l.includes('sandbox'))!;
    expect(line).toContain(`svc_test_${created.json.prefix}…${created.json.last4}  test  active`);
    expect(text.stdout.split('\n').find((l) => l.includes('  default  '))).toContain('  live  active');
    expect(text.stdout).not.toContain(created.json.key.slice(9));
  });

  it('a --mode that is neither live nor test is a usage error naming the flag, and nothing is created', async () => {
    const f = await createFirm(t.app, { publish: false });
    // Counted in the database: what is judged is that nothing was written, not the listing (tested above).
    const stored = async () =>
      (
        await t.sql(
          `SELECT (SELECT count(*) FROM api_keys WHERE org_id = $1)::int AS keys, (SELECT count(*) FROM webhook_endpoints WHERE org_id = $1)::int AS endpoints`,
          [f.orgId],
        )
      )[0];
    const before = await stored();
    // The key's refusal through the process (a usage error found once the command runs); the endpoint's in-process.
    const [bad, badEndpoint] = await Promise.all([
      spawned(['key', 'create', '--org', f.slug, '--name', 'x', '--set', 'read', '--mode', 'sandbox']),
      cli(['endpoint', 'create', '--org', f.slug, '--url', 'http://127.0.0.1:9/h', '--types', 'lead.created', '--mode', 'TEST']),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --mode must be live or test, not "sandbox"/);
    expect(bad.stdout).toBe('');
    expect(badEndpoint.code).toBe(2);
    expect(badEndpoint.message).toMatch(/--mode must be live or test/);
    expect(await stored()).toEqual(before);
  });

  it('endpoint create --mode test makes a test-mode endpoint: endpoint list shows livemode, and only a test key sees it', async () => {
    const f = await createFirm(t.app, { publish: false });
    const created = await cli([
      'endpoint',
      'create',
      '--org',
      f.slug,
      '--url',
      'http://127.0.0.1:9/hook',
      '--types',
      'lead.created',
      '--mode',
      'test',
      '--json',
    ]);
    expect(created.code).toBe(0);
    expect(Object.keys(created.json)).toEqual(['id', 'secret']);
    const [listed, text, liveView, testKeyCreated] = await Promise.all([
      cli(['endpoint', 'list', '--org', f.slug, '--json']),
      cli(['endpoint', 'list', '--org', f.slug]),
      t.get('/v1/webhook-endpoints', { key: f.keys.read }),
      cli(['key', 'create', '--org', f.slug, '--name', 'sandbox', '--set', 'read', '--mode', 'test', '--json']),
    ]);
    expect(listed.json.endpoints).toEqual([expect.objectContaining({ id: created.json.id, livemode: false })]);
    expect(text.text).toContain(`${created.json.id}  test  enabled`);
    expect(liveView.body.endpoints).toEqual([]);
    const testKey = testKeyCreated.json.key;
    expect((await t.get('/v1/webhook-endpoints', { key: testKey })).body.endpoints).toEqual([listed.json.endpoints[0]]);
  });
});
