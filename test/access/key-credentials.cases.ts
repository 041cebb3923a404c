import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ApiKeyService } from '../../src/auth';
import { runCliInProcess } from '../support/cli-in-process';
import { createTestDatabase } from '../support/database';
import { createFirm, type TestFirm } from '../support/factories';
import { newMediumService } from '../support/medium';
import { seededRandom } from '../support/seeded-random';
import { waitFor } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';

describe('keys behave as credentials in every api process', () => {
  let databaseUrl: string;
  let one: TestApp;
  let two: TestApp;
  let firm: TestFirm;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    // Two api processes' worth of service on one database: whatever one knows, the other must too.
    [one, two] = await Promise.all([
      startTestApp({ databaseUrl, env: { ROLE: 'api' } }),
      startTestApp({ databaseUrl, env: { ROLE: 'api' } }),
    ]);
    firm = await createFirm(one.app);
  });
  afterAll(async () => {
    await one.close();
    await two.close();
  });

  const statusIn = async (app: TestApp, key: string) => {
    const r = await app.get('/v1/account', { key });
    return { status: r.status, code: r.body?.code, detail: r.body?.detail };
  };

  it('a key revoked through the CLI is refused by both processes on their very next request', async () => {
    const { key, summary } = await one.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'to revoke', set: 'read' });
    // Both have used (and could have remembered) the key.
    expect((await statusIn(one, key)).status).toBe(200);
    expect((await statusIn(two, key)).status).toBe(200);
    // The CLI's command in a third context composed as the CLI's is (coreModules, on the same database), so neither
    // api process takes part in the revoke; the CLI process itself is proven in operators/cli.cases.ts (loading one costs
    // ~2 s of CPU).
    const cliContext = await newMediumService(ApiKeyService, { databaseUrl });
    try {
      const revoked = await runCliInProcess(cliContext.module, ['key', 'revoke', '--id', summary.id, '--json']);
      expect(revoked).toMatchObject({ code: 0, json: { id: summary.id, status: 'revoked' } });
    } finally {
      await cliContext.close();
    }
    const [a, b] = await Promise.all([statusIn(one, key), statusIn(two, key)]);
    for (const r of [a, b]) expect(r).toEqual({ status: 401, code: 'unauthorized', detail: 'The API key has been revoked.' });
  });

  it('a key that expires is refused by both processes on their very next request', async () => {
    // Each process reads time from its own clock; both are moved past the expiry at once, so a loaded machine
    // cannot let the key expire before the first requests (it did with a real 1.5 s window).
    const expiresAt = new Date(Date.now() + 60_000);
    const { key } = await one.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'short-lived', set: 'read', expiresAt });
    expect((await statusIn(one, key)).status).toBe(200);
    expect((await statusIn(two, key)).status).toBe(200);
    try {
      for (const p of [one, two]) p.clock.advance(60_001);
      const [a, b] = await Promise.all([statusIn(one, key), statusIn(two, key)]);
      for (const r of [a, b]) expect(r).toEqual({ status: 401, code: 'unauthorized', detail: 'The API key has expired.' });
    } finally {
      for (const p of [one, two]) p.clock.reset();
    }
  });
});

/**
 * A wrong key must cost the same whatever prefix of a real key it shares.
 * Keys are found by their 8-character prefix (one indexed lookup), then the
 * SHA-256 of the whole key is compared with timingSafeEqual; an unknown
 * prefix compares against zeros, so every wrong key does one lookup and one
 * comparison.
 *
 * What this detects: any path that answers a wrong key in a clearly different
 * time depending on how much of a real key it shares (medians more than 2x
 * apart, from many interleaved samples), such as skipping the database
 * lookup for a prefix known not to exist (a cache or filter), or doing the
 * expensive work (a slow KDF, an extra query) only when the prefix matches.
 * Measured in-process on ApiKeyService.authenticate, where the lookup is most
 * of the cost: a mutation that skipped it for unknown prefixes made those
 * groups about 6x faster here and failed the first test. Over HTTP the same
 * mutation stays under 2x (the request around it costs more than the
 * lookup), so the HTTP test only guards gross differences (an extra query,
 * a slow KDF) and that every group gets the same 401 detail.
 * What it cannot detect: differences of nanoseconds, such as a byte-by-byte
 * early-exit comparison of the 32-byte hashes (Buffer.equals instead of
 * timingSafeEqual): that is far below the jitter of a database round trip
 * and stays guarded by code review of api-key.service.ts.
 */
describe('a wrong key costs the same whatever prefix of a real key it shares', () => {
  let t: TestApp;
  let real: string;

  beforeAll(async () => {
    t = await startTestApp();
    real = (await createFirm(t.app)).keys.read;
  });
  afterAll(() => t.close());

  const body = (n: number) => randomBytes(48).toString('base64url').slice(0, n);
  /** The order groups are measured in, each round. */
  const random = seededRandom('key-credentials');
  /** Wrong keys sharing the first `shared` characters of the real key (the 9-character svc_live_ is always shared). */
  const GROUPS: Record<string, () => string> = {
    'all but the last character': () => real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A'),
    'the whole 8-character prefix': () => real.slice(0, 17) + body(real.length - 17),
    'half the prefix': () => real.slice(0, 13) + body(real.length - 13),
    'nothing past svc_live_': () => 'svc_live_' + body(real.length - 9),
  };

  /** Interleaved rounds (group order shuffled each round), so load drifts hit every group alike. */
  async function sample(rounds: number, measure: (key: string) => Promise<void>): Promise<Record<string, number>> {
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(GROUPS).map((g) => [g, []]));
    const names = Object.keys(GROUPS);
    for (let i = 0; i < rounds; i++) {
      for (const g of random.shuffle(names)) {
        const key = GROUPS[g]();
        const started = process.hrtime.bigint();
        await measure(key);
        times[g].push(Number(process.hrtime.bigint() - started));
      }
    }
    return Object.fromEntries(names.map((g) => [g, trimmedMean(times[g])]));
  }
  const trimmedMean = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const kept = s.slice(Math.floor(s.length * 0.2), Math.ceil(s.length * 0.8));
    return kept.reduce((a, b) => a + b, 0) / kept.length;
  };
  const expectAlike = (means: Record<string, number>) => {
    const values = Object.values(means);
    const ratio = Math.max(...values) / Math.min(...values);
    expect({ means, withinTwofold: ratio < 2 }).toEqual({ means, withinTwofold: true });
  };

  it('in the service: authenticate() takes the same time for every group (trimmed means within 2x)', async () => {
    const keys = t.app.get(ApiKeyService);
    const measure = async (key: string) => {
      await expect(keys.authenticate(`Bearer ${key}`)).rejects.toMatchObject({ code: 'unauthorized' });
    };
    await sample(30, measure); // warm-up: prepared statement, JIT
    expectAlike(await sample(300, measure));
  });

  it('over HTTP: every group gets the same 401 in the same time (trimmed means within 2x)', async () => {
    const details = new Set<string>();
    const measure = async (key: string) => {
      const r = await t.get('/v1/account', { key });
      expect(r.status).toBe(401);
      details.add(r.body.detail);
    };
    await sample(20, measure);
    expectAlike(await sample(150, measure));
    expect([...details]).toEqual(['The API key is not valid.']);
  });
});

describe('revoking a key', () => {
  let t: TestApp;
  let firm: TestFirm;
  beforeAll(async () => {
    t = await startTestApp();
    firm = await createFirm(t.app);
  });
  afterAll(() => t.close());

  it('revoking reads the key inside its own transaction: a revoke racing another answers the key as revoked, audited once', async () => {
    const { summary } = await t.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'revoked twice', set: 'read' });
    const other = new pg.Client({ connectionString: t.databaseUrl });
    await other.connect();
    try {
      // Another writer revokes the key and holds its transaction open.
      await other.query('BEGIN');
      await other.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [summary.id]);
      const revoking = t.app.get(ApiKeyService).revoke(summary.id);
      await waitFor(
        async () =>
          (
            await other.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
            )
          ).rowCount,
        'the revoke to wait on the held row',
      );
      await other.query('COMMIT');
      const answer = await revoking;
      expect(answer).toMatchObject({ id: summary.id, status: 'revoked' });
      expect(answer.revoked_at).not.toBeNull();
      const audited = await t.sql(`SELECT 1 FROM audit_log WHERE action = 'api_key.revoked' AND $1 = ANY(resource_ids)`, [summary.id]);
      expect(audited).toHaveLength(0);
    } finally {
      await other.end();
    }
  });
});
