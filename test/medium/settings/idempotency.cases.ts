import { randomUUID } from 'node:crypto';
import { RetentionRunner } from '../../../src/common/retention/retention-runner';
import type { IdempotentRequest } from '../../../src/common/http/idempotency-stage';
import { IdempotencyService, requestFingerprint } from '../../../src/idempotency';
import { createFirm, type TestFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';

const HOUR = 3_600_000;

/**
 * IdempotencyService (the rules of Idempotency-Key) against the real database, without HTTP: what a key holds and
 * for how long, who may take it over, and what is stored. The HTTP stage (what each answer stores and replays, the
 * 409 of a concurrent duplicate, across api processes): test/webhooks/webhook-api/idempotency.ts,
 * test/multi-process.e2e.spec.ts.
 */
describe('IdempotencyService', () => {
  let m: MediumService<IdempotencyService>;
  let f: TestFirm;

  beforeAll(async () => {
    m = await newMediumService(IdempotencyService);
    f = await createFirm(m.module, { publish: false });
  });
  afterAll(() => m.close());
  afterEach(() => m.clock.reset());

  const request = (over: Partial<IdempotentRequest> = {}): IdempotentRequest => ({
    keyId: f.keyIds.read,
    apiKey: f.keys.read,
    idempotencyKey: randomUUID(),
    method: 'POST',
    url: '/v1/webhook-endpoints/x/test',
    body: undefined,
    ...over,
  });
  const answer = { status: 202, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"delivery":{"id":"d1"}}' };
  const rows = (r: IdempotentRequest) =>
    m.sql(`SELECT * FROM idempotency_keys WHERE key_id = $1 AND idempotency_key = $2`, [r.keyId, r.idempotencyKey]);

  it('the first request takes the key; the same one again replays the stored answer, sealed in the table', async () => {
    const r = request();
    const first = await m.sut.begin(r);
    expect(first.kind).toBe('run');
    if (first.kind !== 'run') return;
    await expect(m.sut.begin(r)).rejects.toMatchObject({ code: 'idempotency_key_in_use', extra: { retry_after: 1 } });
    await m.sut.finish(first.claim, answer);
    expect(await m.sut.begin(r)).toEqual({ kind: 'replay', answer });
    const [row] = await rows(r);
    expect(row).toMatchObject({
      status_code: 202,
      claim_token: null,
      locked_until: null,
      request_hash: requestFingerprint('POST', r.url, undefined),
    });
    expect(row.answer).toMatch(/^v1\./);
    expect(row.answer).not.toContain('"d1"');
  });

  it('another route or body with the key answers 422; another API key has keys of its own', async () => {
    const r = request();
    const first = await m.sut.begin(r);
    if (first.kind !== 'run') throw new Error('not run');
    const otherRoute = { ...r, url: '/v1/webhook-endpoints/y/test' };
    // While it runs, as after: a key's other request is never this one.
    await expect(m.sut.begin(otherRoute)).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    await m.sut.finish(first.claim, answer);
    await expect(m.sut.begin(otherRoute)).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    const otherKey = await m.sut.begin({ ...r, keyId: f.keyIds['read-update-leads'], apiKey: f.keys['read-update-leads'] });
    expect(otherKey.kind).toBe('run');
  });

  it('an answer that says the request was not run lets the key go: the same key runs again', async () => {
    for (const status of [400, 401, 403, 429, 500, 503]) {
      const r = request();
      const first = await m.sut.begin(r);
      if (first.kind !== 'run') throw new Error('not run');
      await m.sut.finish(first.claim, { ...answer, status });
      expect(await rows(r)).toEqual([]);
      expect((await m.sut.begin(r)).kind).toBe('run');
    }
    const kept = request();
    const first = await m.sut.begin(kept);
    if (first.kind !== 'run') throw new Error('not run');
    await m.sut.finish(first.claim, { ...answer, status: 404, body: '{"code":"not_found"}' });
    expect(await m.sut.begin(kept)).toMatchObject({ kind: 'replay', answer: { status: 404 } });
  });

  it('a first request that stopped without an answer (its lease ran out) is run again by its retry, not by another request', async () => {
    const r = request();
    const first = await m.sut.begin(r);
    if (first.kind !== 'run') throw new Error('not run');
    await m.sql(`UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE claim_token = $1`, [first.claim.claimToken]);
    const otherBody = { ...r, body: { a: 1 } };
    await expect(m.sut.begin(otherBody)).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    const retry = await m.sut.begin(r);
    expect(retry.kind).toBe('run');
    // The stalled first run can no longer store its answer over the retry's.
    await m.sut.finish(first.claim, answer);
    expect(await rows(r)).toEqual([expect.objectContaining({ status_code: null })]);
    if (retry.kind === 'run') await m.sut.finish(retry.claim, { ...answer, body: '{"retry":true}' });
    expect(await m.sut.begin(r)).toMatchObject({ kind: 'replay', answer: { body: '{"retry":true}' } });
  });

  it('a key is kept 24 hours: then any request takes it afresh, and the retention job deletes it', async () => {
    const r = request();
    const first = await m.sut.begin(r);
    if (first.kind !== 'run') throw new Error('not run');
    await m.sut.finish(first.claim, answer);
    m.clock.advance(24 * HOUR - 60_000);
    expect((await m.sut.begin(r)).kind).toBe('replay');
    await m.module.get(RetentionRunner).run('idempotency_keys');
    expect(await rows(r)).toHaveLength(1);
    m.clock.advance(2 * 60_000);
    await m.module.get(RetentionRunner).run('idempotency_keys');
    expect(await rows(r)).toEqual([]);
    const other = request();
    const kept = await m.sut.begin(other);
    if (kept.kind !== 'run') throw new Error('not run');
    await m.sut.finish(kept.claim, answer);
    m.clock.advance(24 * HOUR + 1);
    expect((await m.sut.begin({ ...other, url: '/v1/other' })).kind).toBe('run');
  });

  it('concurrent first requests with one key: exactly one runs, every other is told it is in use', async () => {
    const r = request();
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => m.sut.begin(r)));
    const ran = results.filter((x) => x.status === 'fulfilled' && x.value.kind === 'run');
    expect(ran).toHaveLength(1);
    for (const x of results.filter((y) => y.status === 'rejected')) {
      expect((x as PromiseRejectedResult).reason).toMatchObject({ code: 'idempotency_key_in_use' });
    }
  });
});
