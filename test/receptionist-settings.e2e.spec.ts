import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_SETTINGS } from '../src/demo';
import { runCli } from './support/cli';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

/** Settings whose judge_court rule has the given language_overrides (or none at all, for undefined). */
function withOverrides(overrides: unknown): Record<string, any> {
  const settings = structuredClone(DEMO_SETTINGS) as Record<string, any>;
  const rule = settings.routing.judge_court;
  if (overrides === undefined) delete rule.language_overrides;
  else rule.language_overrides = overrides;
  return settings;
}

describe('receptionist settings: routing rules are served as the spec gives them', () => {
  let t: TestApp;
  let firm: TestFirm;
  const dir = mkdtempSync(join(tmpdir(), 'receptionist-settings-'));
  let files = 0;

  const publish = (settings: unknown) => {
    const file = join(dir, `settings-${++files}.json`);
    writeFileSync(file, JSON.stringify(settings));
    return runCli(['receptionist', 'publish', '--org', firm.slug, '--file', file, '--json'], { databaseUrl: t.databaseUrl });
  };
  const served = async () => {
    const r = await t.get('/v1/receptionist', { key: firm.keys.read });
    expect(r.status).toBe(200);
    return r.body;
  };
  const storedVersion = async () =>
    (await t.sql('SELECT version FROM receptionist_settings WHERE org_id = $1', [firm.orgId]))[0].version as number;

  beforeAll(async () => {
    t = await startTestApp();
    firm = await createFirm(t.app);
  });
  afterAll(() => t.close());

  it.each([
    ['an empty language_overrides', {}, { en: null, es: null }],
    ['language_overrides with en only', { en: null }, { en: null, es: null }],
    ['language_overrides with es only', { es: { in_hours_chain: ['luis'] } }, { en: null, es: { in_hours_chain: ['luis'] } }],
  ])('publishes %s and serves both members, the missing one null', async (_name, overrides, expected) => {
    const r = await publish(withOverrides(overrides));
    expect(r.code).toBe(0);
    const body = await served();
    expect(body.version).toBe(r.json.version);
    expect(body.routing.judge_court.language_overrides).toEqual(expected);
    const [row] = await t.sql(
      `SELECT published->'routing'->'judge_court'->'language_overrides' AS lo FROM receptionist_settings WHERE org_id = $1`,
      [firm.orgId],
    );
    expect(row.lo).toEqual(expected);
  });

  it.each([
    ['no language_overrides at all', undefined, 'routing.judge_court.language_overrides'],
    ['language_overrides null', null, 'routing.judge_court.language_overrides'],
    ['language_overrides as an array', [], 'routing.judge_court.language_overrides'],
    ['language_overrides as a string', 'es', 'routing.judge_court.language_overrides'],
    ['en as an array', { en: [], es: null }, 'routing.judge_court.language_overrides.en'],
    ['es without its chain', { en: null, es: {} }, 'routing.judge_court.language_overrides.es.in_hours_chain'],
  ])('refuses %s with a message naming the field, publishing nothing', async (_name, overrides, field) => {
    const before = await storedVersion();
    const r = await publish(withOverrides(overrides));
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/TypeError/);
    expect(r.json.error.message).toContain(field);
    expect(await storedVersion()).toBe(before);
  });

  it('refuses a routing rule that is not an object, naming it', async () => {
    const settings = structuredClone(DEMO_SETTINGS) as Record<string, any>;
    settings.routing.judge_court = [];
    const r = await publish(settings);
    expect(r.code).toBe(1);
    expect(r.json.error.message).toContain('routing.judge_court');
  });

  it('serves settings stored before rules were normalised with both members present', async () => {
    const stored = withOverrides({ es: { in_hours_chain: ['luis'] } });
    delete stored.routing.other.language_overrides;
    await t.sql('UPDATE receptionist_settings SET published = $2::jsonb WHERE org_id = $1', [firm.orgId, JSON.stringify(stored)]);
    const body = await served();
    expect(body.routing.judge_court.language_overrides).toEqual({ en: null, es: { in_hours_chain: ['luis'] } });
    expect(body.routing.other.language_overrides).toEqual({ en: null, es: null });
  });
});
