import pg from 'pg';
import { ApiKeyService } from '../../src/auth';
import { createTestDatabase } from '../support/database';
import { createFirm, type TestFirm } from '../support/factories';
import { waitFor } from '../support/receiver';
import { startTestApp, type HttpResult, type TestApp } from '../support/test-app';

/** What the README and the document say: 100 test calls per key per hour (one back every 36 s), 4 requests under way. */
const PER_HOUR = 100;
const EVERY_S = 36;
const UNDER_WAY = 4;

const refusal = (r: HttpResult) => ({
  status: r.status,
  code: r.body?.code,
  retryAfter: r.headers.get('retry-after'),
  detail: r.body?.detail,
});

/**
 * The test helpers' per-key budget: test calls created per hour, counted in PostgreSQL so every api process draws from
 * one allowance, and requests under way per key in a process; both answered 429 `rate_limited` with Retry-After.
 */
describe('test helpers: the per-key budget', () => {
  let one: TestApp;
  let two: TestApp;
  let firm: TestFirm;
  const testKey = async (name: string) =>
    (await one.app.get(ApiKeyService).create({ orgId: firm.orgId, name, set: 'read-update-leads', livemode: false })).key;
  const simulate = (app: TestApp, key: string) =>
    app.request('POST', '/v1/test-helpers/calls', { key, body: { recording: false, lead: false } });

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    // Two api processes' worth of service on one database; a request held on a row lock by the test is not cut by
    // the statement timeout on a slow machine.
    // The test helpers' own budget (4 at once) is judged alone: the general per-key cap (2 by default) out of the way.
    const env = { ROLE: 'api', DATABASE_STATEMENT_TIMEOUT: '60s', CONCURRENT_REQUESTS_PER_KEY: '100' };
    [one, two] = await Promise.all([startTestApp({ databaseUrl, env }), startTestApp({ databaseUrl, env })]);
    firm = await createFirm(one.app, { publish: false });
  });
  afterEach(() => {
    for (const app of [one, two]) app?.clock.reset();
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it(`a key creates ${PER_HOUR} test calls an hour through any process, then 429 until one is back`, async () => {
    const key = await testKey('hourly');
    const apps = [one, two];
    // Both processes' clocks stand still at one instant: on a loaded machine the 100 requests took over 36 s of real
    // time, and one call came back before the 101st asked (201 where 429 was due).
    const at = Date.now();
    for (const app of apps) app.clock.freezeAt(at);
    // Half through each process, a few at a time (within the requests a key may have under way).
    for (let i = 0; i < PER_HOUR; i += 2 * UNDER_WAY) {
      const batch = Array.from({ length: Math.min(2 * UNDER_WAY, PER_HOUR - i) }, (_, j) => simulate(apps[j % 2], key));
      for (const r of await Promise.all(batch)) expect(r.status).toBe(201);
    }
    const made = async () => (await one.sql(`SELECT count(*)::int AS n FROM calls WHERE org_id = $1 AND NOT livemode`, [firm.orgId]))[0].n;
    expect(await made()).toBe(PER_HOUR);

    const allowance = () =>
      one.sql(`SELECT a.* FROM key_allowances a JOIN api_keys k ON k.id = a.key_id WHERE k.org_id = $1`, [firm.orgId]);
    const spent = await allowance();
    for (const app of apps) {
      const r = await simulate(app, key);
      expect(refusal(r)).toEqual({
        status: 429,
        code: 'rate_limited',
        retryAfter: expect.stringMatching(/^\d+$/),
        detail: expect.stringContaining(`${PER_HOUR} test calls per hour`),
      });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(EVERY_S);
      expect(r.body.retry_after).toBe(Number(r.headers.get('retry-after')));
    }
    expect(await made()).toBe(PER_HOUR); // a refused request created nothing, and took nothing
    expect(await allowance()).toEqual(spent);
    // Another test key of the firm has its own allowance.
    expect((await simulate(two, await testKey('another'))).status).toBe(201);

    // Both processes' clocks move on by one call's worth: exactly one more, in whichever process asks first.
    for (const app of apps) app.clock.advance(EVERY_S * 1000);
    expect((await simulate(two, key)).status).toBe(201);
    expect((await simulate(one, key)).status).toBe(429);
  }, 120_000);

  it(`a key has at most ${UNDER_WAY} test-helper requests under way in a process; more answer 429 at once`, async () => {
    const key = await testKey('concurrent');
    const { call_id } = (await simulate(one, key)).body;
    const holder = new pg.Client({ connectionString: one.databaseUrl });
    await holder.connect();
    try {
      // The call's row held by another writer: each re-processing under way waits (on the row, or its turn before it).
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM calls WHERE org_id = $1 AND call_id = $2 FOR UPDATE', [firm.orgId, call_id]);
      const answers: HttpResult[] = [];
      const sent = Array.from({ length: UNDER_WAY + 2 }, () =>
        one.request('POST', `/v1/test-helpers/calls/${call_id}/reprocess`, { key }).then((r) => void answers.push(r)),
      );
      await waitFor(() => answers.length === 2, 'the requests over the budget to be answered', 30_000);
      for (const r of answers) {
        expect(refusal(r)).toEqual({
          status: 429,
          code: 'rate_limited',
          retryAfter: '1',
          detail: expect.stringContaining(`${UNDER_WAY} test-helper requests under way`),
        });
      }
      // Another process is not this one: its own budget lets a request of the key in.
      const elsewhere = two.request('POST', '/v1/test-helpers/calls', { key, body: { recording: false, lead: false } });
      expect((await elsewhere).status).toBe(201);
      await holder.query('COMMIT');
      await Promise.all(sent);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 429, 429]);
      // Nothing is left counted: the key has its whole budget of requests under way again.
      const again = await Promise.all(
        Array.from({ length: UNDER_WAY }, () => one.request('POST', `/v1/test-helpers/calls/${call_id}/reprocess`, { key })),
      );
      expect(again.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    } finally {
      await holder.end();
    }
  }, 120_000);

  it('a retry with the same Idempotency-Key, through either process, makes no second call and spends none of the hour', async () => {
    const created = await one.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'idempotent', set: 'read', livemode: false });
    const at = Date.now();
    for (const app of [one, two]) app.clock.freezeAt(at);
    const send = (app: TestApp, body: unknown) =>
      app.request('POST', '/v1/test-helpers/calls', { key: created.key, body, headers: { 'Idempotency-Key': 'sim-1' } });
    const first = await send(one, { recording: false, lead: false });
    expect(first.status).toBe(201);
    // The same body with its members in another order is the same request.
    const again = await send(two, { lead: false, recording: false });
    expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([201, 'true', first.text]);
    const reused = await send(one, { recording: false, lead: true });
    expect([reused.status, reused.body.code]).toEqual([422, 'idempotency_key_reused']);
    expect(await one.sql(`SELECT call_id FROM calls WHERE call_id = $1`, [first.body.call_id])).toHaveLength(1);
    // One test call taken from the key's hundred (each call made takes one), however many retries.
    const [allowance] = await one.sql(`SELECT tokens FROM key_allowances WHERE key_id = $1`, [created.summary.id]);
    expect(Number(allowance.tokens)).toBeCloseTo(PER_HOUR - 1, 6);
  });

  it('the document states the 429 and the budget on both operations', async () => {
    const doc = (await one.get('/v1/openapi.json')).body;
    const simulateOp = doc.paths['/v1/test-helpers/calls'].post;
    const reprocessOp = doc.paths['/v1/test-helpers/calls/{call_id}/reprocess'].post;
    for (const op of [simulateOp, reprocessOp]) {
      expect(op.responses['429'].headers['Retry-After']).toBeDefined();
      expect(op.description).toContain(`${UNDER_WAY} test-helper requests under way at once`);
      expect(op.description).toContain('deleted 30 days after they were made');
    }
    expect(simulateOp.description).toContain(`${PER_HOUR} test calls per hour (one more every ${EVERY_S} s`);
  });
});
