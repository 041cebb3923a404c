import { randomUUID } from 'node:crypto';
import { SCOPES } from '../../src/common/http/scopes';
import { requestFingerprint } from '../../src/idempotency';
import { createFirm } from '../support/factories';
import { insertKeyWithScopes } from '../support/keys';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

type Json = Record<string, any>;
interface Operation {
  method: string;
  template: string;
  op: Json;
}

/**
 * The idempotency stage on every operation that takes an Idempotency-Key, from the served document (an operation
 * added tomorrow is covered the day it is documented): every POST states the header, and answers 409
 * `idempotency_key_in_use` (with Retry-After) while a request with its key is still being processed, whichever
 * process runs it, and 422 `idempotency_key_reused` for a key already used on another route. What each answer
 * stores and replays, and a real concurrent duplicate: test/webhooks/webhook-api/idempotency.ts.
 */
describe('Idempotency-Key on every POST the document lists', () => {
  let t: TestApp;
  let live: { id: string; key: string };
  let test: { id: string; key: string };
  let operations: Operation[];

  beforeAll(async () => {
    t = await sharedTestApp();
    const firm = await createFirm(t.app, { publish: false });
    live = await insertKeyWithScopes(t, firm.orgId, [...SCOPES]);
    test = await insertKeyWithScopes(t, firm.orgId, [...SCOPES], { livemode: false });
    const doc = (await t.get('/v1/openapi.json')).body;
    operations = Object.entries<Json>(doc.paths).flatMap(([template, item]) =>
      Object.entries<Json>(item)
        .filter(([, op]) => op?.responses)
        .map(([method, op]) => ({ method: method.toUpperCase(), template, op })),
    );
  });

  const takesKey = (o: Operation) => (o.op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'Idempotency-Key');
  const name = (o: Operation) => `${o.method} ${o.template}`;
  const keyFor = (o: Operation) => (o.op['x-test-mode-only'] === true ? test : live);
  const pathOf = (o: Operation) =>
    o.template.replace(/\{(\w+)\}/g, (_m, param: string) => {
      const p = (o.op.parameters ?? []).find((x: Json) => x.in === 'path' && x.name === param);
      return encodeURIComponent(String(p?.example ?? p?.schema?.example));
    });
  /** A body only where the operation takes one. */
  const bodyOf = (o: Operation) => (o.op.requestBody ? {} : undefined);
  const send = (o: Operation, idempotencyKey: string) =>
    t.request(o.method, pathOf(o), { key: keyFor(o).key, body: bodyOf(o), headers: { 'Idempotency-Key': idempotencyKey } });

  it('every POST under /v1 states the header, its 409 and its 422', () => {
    const posts = operations.filter((o) => o.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(5);
    expect(operations.filter(takesKey).map(name)).toEqual(posts.map(name));
    for (const o of posts) expect([name(o), '409' in o.op.responses, '422' in o.op.responses]).toEqual([name(o), true, true]);
  });

  it('409 idempotency_key_in_use with Retry-After while a request with the key is being processed, on each', async () => {
    const wrong: string[] = [];
    for (const o of operations.filter(takesKey)) {
      const idempotencyKey = randomUUID();
      // The key held as a request still running holds it (in this process or any other): its row, leased.
      await t.sql(
        `INSERT INTO idempotency_keys (key_id, idempotency_key, request_hash, created_at, locked_until, claim_token)
         VALUES ($1, $2, $3, now(), now() + interval '1 minute', gen_random_uuid())`,
        [keyFor(o).id, idempotencyKey, requestFingerprint(o.method, pathOf(o), bodyOf(o))],
      );
      const r = await send(o, idempotencyKey);
      if (r.status !== 409 || r.body?.code !== 'idempotency_key_in_use' || r.headers.get('retry-after') !== '1')
        wrong.push(`${name(o)}: ${r.status} ${r.text.slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('422 idempotency_key_reused for a key first used on another route, on each', async () => {
    const wrong: string[] = [];
    for (const o of operations.filter(takesKey)) {
      const idempotencyKey = randomUUID();
      // First on another route: a test of an endpoint that does not exist, whose 404 is stored.
      const first = await t.request('POST', `/v1/webhook-endpoints/${randomUUID()}/test`, {
        key: keyFor(o).key,
        headers: { 'Idempotency-Key': idempotencyKey },
      });
      expect(first.status).toBe(404);
      const r = await send(o, idempotencyKey);
      if (r.status !== 422 || r.body?.code !== 'idempotency_key_reused') wrong.push(`${name(o)}: ${r.status} ${r.text.slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });
});
