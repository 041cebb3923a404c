import { DEMO_SETTINGS } from '../../../src/demo';
import { ReceptionistService } from '../../../src/receptionist';
import { createFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';

/** Settings whose judge_court rule has the given language_overrides (or none at all, for undefined). */
function withOverrides(overrides: unknown): Record<string, any> {
  const settings = structuredClone(DEMO_SETTINGS) as Record<string, any>;
  const rule = settings.routing.judge_court;
  if (overrides === undefined) delete rule.language_overrides;
  else rule.language_overrides = overrides;
  return settings;
}

/** ReceptionistService (the dashboard's publish and draft, GET /v1/receptionist) against the real database, without HTTP. */
describe('ReceptionistService', () => {
  let m: MediumService<ReceptionistService>;

  beforeAll(async () => {
    m = await newMediumService(ReceptionistService);
  });
  afterAll(() => m.close());

  const newFirm = async (publish = true) => (await createFirm(m.module, { publish })).orgId;
  const storedVersion = async (orgId: string) =>
    (await m.sql('SELECT version FROM receptionist_settings WHERE org_id = $1', [orgId]))[0]?.version as number | undefined;

  it('is not_published until the firm first publishes', async () => {
    await expect(m.sut.getPublished(await newFirm(false))).rejects.toMatchObject({ code: 'not_published' });
  });

  it('publish numbers each version; a draft leaves the served settings and version alone until the next publish', async () => {
    const orgId = await newFirm(false);
    m.clock.freeze();
    const first = await m.sut.publish(orgId, DEMO_SETTINGS);
    expect(first).toEqual({ version: 1, published_at: m.clock.now().toISOString() });
    expect(await m.sut.getPublished(orgId)).toEqual({
      ...DEMO_SETTINGS,
      version: 1,
      published_at: first.published_at,
      draft_pending: false,
    });

    m.clock.advance(60_000);
    expect(await m.sut.saveDraft(orgId, { ...DEMO_SETTINGS, agent_name: 'Nova' })).toEqual({ draft_pending: true, version: 1 });
    expect(await m.sut.getPublished(orgId)).toMatchObject({
      agent_name: 'Ava',
      version: 1,
      published_at: first.published_at,
      draft_pending: true,
    });

    const second = await m.sut.publish(orgId, { ...DEMO_SETTINGS, agent_name: 'Nova' });
    expect(second).toEqual({ version: 2, published_at: m.clock.now().toISOString() });
    expect(await m.sut.getPublished(orgId)).toMatchObject({
      agent_name: 'Nova',
      version: 2,
      published_at: second.published_at,
      draft_pending: false,
    });
    m.clock.reset();
  });

  it('refuses an invalid settings document, naming the field, and keeps the published one', async () => {
    const orgId = await newFirm();
    const bad = { ...DEMO_SETTINGS, hours: { ...DEMO_SETTINGS.hours, timezone: 'Mars/Olympus' } };
    expect(() => m.sut.validate(bad)).toThrow(/hours\.timezone/);
    const routed = { ...DEMO_SETTINGS, routing: { other: { ...DEMO_SETTINGS.routing.other, in_hours_chain: ['nobody'] } } };
    await expect(m.sut.publish(orgId, routed)).rejects.toThrow(/routing\.other.*"nobody"/);
    await expect(m.sut.publish(orgId, { ...DEMO_SETTINGS, surprise: true })).rejects.toThrow(/surprise/);
    await expect(m.sut.saveDraft(orgId, routed)).rejects.toThrow(/routing\.other/);
    expect(await m.sut.getPublished(orgId)).toMatchObject({ version: 1, draft_pending: false });
  });

  describe('routing rules are stored and served as the spec gives them', () => {
    it.each([
      ['an empty language_overrides', {}, { en: null, es: null }],
      ['language_overrides with en only', { en: null }, { en: null, es: null }],
      ['language_overrides with es only', { es: { in_hours_chain: ['luis'] } }, { en: null, es: { in_hours_chain: ['luis'] } }],
    ])('publishes %s and serves both members, the missing one null', async (_name, overrides, expected) => {
      const orgId = await newFirm(false);
      const { version } = await m.sut.publish(orgId, withOverrides(overrides));
      const served = await m.sut.getPublished(orgId);
      expect(served.version).toBe(version);
      expect(served.routing.judge_court.language_overrides).toEqual(expected);
      const [row] = await m.sql(
        `SELECT published->'routing'->'judge_court'->'language_overrides' AS lo FROM receptionist_settings WHERE org_id = $1`,
        [orgId],
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
      const orgId = await newFirm();
      const refused = await m.sut.publish(orgId, withOverrides(overrides)).catch((e: unknown) => e);
      // A refusal the CLI and the dashboard word from its problems, never a TypeError from reading a missing member.
      expect(refused).toMatchObject({
        code: 'invalid_request',
        problems: expect.arrayContaining([expect.objectContaining({ path: field })]),
      });
      expect((refused as Error).message).toContain(field);
      expect(await storedVersion(orgId)).toBe(1);
    });

    it('refuses a routing rule that is not an object, naming it', async () => {
      const settings = structuredClone(DEMO_SETTINGS) as Record<string, any>;
      settings.routing.judge_court = [];
      await expect(m.sut.publish(await newFirm(), settings)).rejects.toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining('routing.judge_court'),
      });
    });

    it('serves settings stored before rules were normalised with both members present', async () => {
      const orgId = await newFirm();
      const stored = withOverrides({ es: { in_hours_chain: ['luis'] } });
      delete stored.routing.other.language_overrides;
      await m.sql('UPDATE receptionist_settings SET published = $2::jsonb WHERE org_id = $1', [orgId, JSON.stringify(stored)]);
      const served = await m.sut.getPublished(orgId);
      expect(served.routing.judge_court.language_overrides).toEqual({ en: null, es: { in_hours_chain: ['luis'] } });
      expect(served.routing.other.language_overrides).toEqual({ en: null, es: null });
    });
  });
});
