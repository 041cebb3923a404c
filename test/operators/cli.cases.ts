import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_SETTINGS } from '../../src/demo';
import { runCli } from '../support/cli';
import { runCliInProcess } from '../support/cli-in-process';
import { freePort } from '../support/net';
import { createTestDatabase } from '../support/database';
import { startTestApp, type TestApp } from '../support/test-app';
import { createFirm } from '../support/factories';

/**
 * The admin CLI's org, key, receptionist and demo commands. Their rules run in-process through the CLI's own
 * parser, command table and failure map (runCliInProcess): a CLI process costs ~2 s of CPU just to load. The real
 * process (runCli) stays where the contract is the process's own: an exit code, stdout holding exactly one JSON
 * object with --json (the error object too), the message on stderr, reading stdin, the environment read at start,
 * and starting the embedded database.
 */
describe('admin CLI against DATABASE_URL', () => {
  let db: string;
  let t: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'cli-test-'));
  beforeAll(async () => {
    db = await createTestDatabase();
    t = await startTestApp({ databaseUrl: db });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const cli = (args: string[]) => runCliInProcess(t.app, [...args, '--json']);

  it('prints what it did not write itself with bidirectional and control characters escaped; --json keeps the value', async () => {
    const name = 'Reyes \u202eexe.gnp\u2066 Law\u0085';
    const created = await cli(['org', 'create', '--name', name]);
    expect(created.code).toBe(0);
    // The real process: main.ts prints the human form through the same escaping as the in-process harness.
    const text = await runCli(['org', 'list'], { databaseUrl: db });
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n').find((line) => line.includes(created.json.id))).toContain('Reyes \\u202eexe.gnp\\u2066 Law\\x85');
    expect(text.stdout).not.toMatch(/[\u0085\u202a-\u202e\u2066-\u2069]/);
    const listed = await cli(['org', 'list']);
    expect(listed.json.orgs.find((o: { id: string }) => o.id === created.json.id).display_name).toBe(name);
  });

  it('creates a firm and a key that works against the API, shown only once', async () => {
    const org = await runCli(
      ['org', 'create', '--name', 'Acme Law LLP', '--timezone', 'America/New_York', '--number', '(212) 555-0142', '--json'],
      { databaseUrl: db },
    );
    expect(org.code).toBe(0);
    expect(org.json).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), slug: 'acme-law-llp' });
    expect(org.stdout.trim().split('\n')).toHaveLength(1);

    const key = await cli(['key', 'create', '--org', 'acme-law-llp', '--name', 'CRM sync', '--set', 'read-update-leads']);
    expect(key.code).toBe(0);
    expect(Object.keys(key.json).sort()).toEqual(['expires_at', 'id', 'key', 'last4', 'prefix', 'scopes'].sort());
    expect(key.json.key).toMatch(/^svc_live_[A-Za-z0-9_-]{43,}$/);
    expect(key.json.prefix).toBe(key.json.key.slice(9, 17));
    expect(key.json.last4).toBe(key.json.key.slice(-4));
    expect(key.json.scopes).toContain('leads:write');
    expect(key.json.expires_at).toBeNull();

    const account = await t.get('/v1/account', { key: key.json.key });
    expect(account.status).toBe(200);
    expect(account.body.org).toMatchObject({ id: org.json.id, slug: 'acme-law-llp', timezone: 'America/New_York' });
    expect(account.body.number).toBe('+12125550142');

    const list = await cli(['key', 'list', '--org', org.json.id]);
    expect(list.code).toBe(0);
    expect(list.json.keys).toHaveLength(1);
    expect(list.json.keys[0]).toMatchObject({ id: key.json.id, name: 'CRM sync', status: 'active', prefix: key.json.prefix });
    // Neither form of the list shows the key.
    expect(JSON.stringify(list.json)).not.toContain(key.json.key.slice(9));
    expect(list.text).not.toContain(key.json.key.slice(9));

    const revoke = await cli(['key', 'revoke', '--id', key.json.id]);
    expect(revoke.code).toBe(0);
    expect(revoke.json).toMatchObject({ id: key.json.id, status: 'revoked' });
    expect((await t.get('/v1/account', { key: key.json.key })).status).toBe(401);
  });

  it('publishes and drafts receptionist settings from a file', async () => {
    const org = await cli(['org', 'create', '--name', 'Draft Firm']);
    const file = join(dir, 'settings.json');
    writeFileSync(file, JSON.stringify(DEMO_SETTINGS));
    const pub = await cli(['receptionist', 'publish', '--org', org.json.slug, '--file', file]);
    expect(pub.code).toBe(0);
    expect(pub.json).toMatchObject({ org_id: org.json.id, version: 1, draft_pending: false, published_at: expect.any(String) });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...DEMO_SETTINGS, team: [{ ...DEMO_SETTINGS.team[0], live_transfers: 'yes' }] }));
    // Through the process: a draft read from stdin, and a refused publish beside it (exit 1, the reason on stderr
    // and as the one JSON object on stdout); neither changes the published version.
    const [draft, refused] = await Promise.all([
      runCli(['receptionist', 'draft', '--org', org.json.slug, '--file', '-', '--json'], {
        databaseUrl: db,
        stdin: JSON.stringify({ ...DEMO_SETTINGS, agent_name: 'Nova' }),
      }),
      runCli(['receptionist', 'publish', '--org', org.json.slug, '--file', bad, '--json'], { databaseUrl: db }),
    ]);
    expect(draft.code).toBe(0);
    expect(draft.json).toMatchObject({ version: 1, draft_pending: true });

    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^error: .*team\[0\]\.live_transfers/);
    expect(refused.json).toEqual({ error: { message: expect.stringMatching(/live_transfers/), exit_code: 1 } });
    expect(refused.stdout.trim().split('\n')).toHaveLength(1);
    const [row] = await t.sql('SELECT version FROM receptionist_settings WHERE org_id = $1', [org.json.id]);
    expect(row.version).toBe(1);
  });

  it('demo seed prints the firm and one key per permission set', async () => {
    const r = await cli(['demo', 'seed']);
    expect(r.code).toBe(0);
    expect(r.json.org_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(r.json.keys).sort()).toEqual([
      'read',
      'read-no-transcripts',
      'read-no-transcripts-update-leads',
      'read-update-leads',
    ]);
    const account = await t.get('/v1/account', { key: r.json.keys['read-no-transcripts'] });
    expect(account.body.org.id).toBe(r.json.org_id);
    expect(account.body.api_key.scopes).not.toContain('calls:transcript');
    expect((await t.get('/v1/receptionist', { key: r.json.keys.read })).body.agent_name).toBe('Ava');
  });

  it('refuses bad input with a clear message and a non-zero exit', async () => {
    const firm = await createFirm(t.app);
    const before = await t.sql('SELECT (SELECT count(*) FROM orgs)::int AS orgs, (SELECT count(*) FROM api_keys)::int AS keys');
    // One usage error through the process: exit 2, the message on stderr, and with --json one error object.
    const unknown = await runCli(['org', 'explode', '--json'], { databaseUrl: db });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: unknown command "org explode"/);
    expect(unknown.json).toEqual({ error: { message: expect.stringMatching(/^unknown command "org explode"/), exit_code: 2 } });
    // The other refusals' codes and messages, in-process through the same parser and failure map.
    const [missing, badSet, noName, badTz] = await Promise.all([
      runCliInProcess(t.app, ['key', 'create', '--org', 'nobody', '--name', 'x', '--set', 'read', '--json']),
      runCliInProcess(t.app, ['key', 'create', '--org', firm.slug, '--name', 'x', '--set', 'admin']),
      runCliInProcess(t.app, ['org', 'create', '--json']),
      runCliInProcess(t.app, ['org', 'create', '--name', 'Z', '--timezone', 'Nowhere/Place']),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.message).toMatch(/no firm with id or slug "nobody"/);
    expect(badSet.code).toBe(1);
    expect(badSet.message).toMatch(/--set must be one of read-no-transcripts, read-no-transcripts-update-leads, read, read-update-leads/);
    expect(noName.code).toBe(2);
    expect(noName.message).toMatch(/--name is required/);
    expect(badTz.code).toBe(1);
    expect(badTz.message).toMatch(/timezone "Nowhere\/Place"/);
    // Refused means nothing written.
    expect(await t.sql('SELECT (SELECT count(*) FROM orgs)::int AS orgs, (SELECT count(*) FROM api_keys)::int AS keys')).toEqual(before);
  });

  it('refuses a bad environment at start with a message naming the variable', async () => {
    const r = await runCli(['org', 'list', '--json'], { databaseUrl: db, env: { ROLE: 'boss' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ROLE must be one of all, api, worker/);
  });
});

describe('admin CLI on the embedded database', () => {
  it('starts PostgreSQL in DATA_DIR itself when nothing runs there, and reuses the data', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-embedded-'));
    chmodSync(dataDir, 0o777);
    const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
    const created = await runCli(['org', 'create', '--name', 'Embedded Firm', '--json'], { env });
    expect(created.code).toBe(0);
    const listed = await runCli(['org', 'list', '--json'], { env });
    expect(listed.code).toBe(0);
    expect(listed.json.orgs.map((o: { slug: string }) => o.slug)).toEqual(['embedded-firm']);
    // Each CLI run stopped the server it started (nothing runs there now), so its data can go.
    rmSync(dataDir, { recursive: true, force: true });
  });
});
