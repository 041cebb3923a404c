import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createFirm } from '../../support/factories';
import { waitFor } from '../../support/receiver';
import type { HttpResult, TestApp } from '../../support/test-app';
import type { WebhookApiContext } from './actions';

/**
 * Idempotency-Key on the webhook API's POSTs (test and redeliver), over HTTP: a retry replays the stored answer and
 * makes nothing twice (no event, no delivery, none of the 5 sends a minute), a concurrent duplicate answers 409, a
 * key reused elsewhere 422, and what stores nothing can be retried. The rules' own cases: test/medium/settings/
 * idempotency.cases.ts; across two api processes: test/multi-process.e2e.spec.ts; 409 and 422 on every POST the
 * document lists: test/request-rules/operation-statuses.cases.ts.
 */
export function idempotencyCases(context: () => WebhookApiContext): void {
  let t: TestApp;
  let createEndpoint: WebhookApiContext['createEndpoint'];
  let idle: WebhookApiContext['idle'];
  beforeAll(() => {
    ({ t, createEndpoint, idle } = context());
  });

  const post = (path: string, key: string, idempotencyKey?: string): Promise<HttpResult> =>
    t.request('POST', path, { key, headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey } });
  const deliveriesTo = async (endpointId: string) =>
    (await t.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId]))[0].n as number;
  const testEventsOf = async (orgId: string) =>
    (await t.sql(`SELECT count(*)::int AS n FROM events WHERE org_id = $1 AND type = 'webhook.test'`, [orgId]))[0].n as number;

  describe('Idempotency-Key on test and redeliver', () => {
    it('a retry answers the stored 202 byte for byte with Idempotent-Replayed: true, sends nothing again and spends none of the 5 a minute', async () => {
      t.clock.freeze();
      const f = await createFirm(t.app, { publish: false });
      const { endpoint } = await createEndpoint(f, '/idem/replay', 'call.completed');
      const path = `/v1/webhook-endpoints/${endpoint.id}/test`;
      const key = randomUUID();
      const first = await post(path, f.keys.read, key);
      expect(first.status).toBe(202);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      // Retries, in both of the header's forms; none runs the test again nor counts against the endpoint's limit.
      for (const sent of [key, `"${key}"`, key, key]) {
        const again = await post(path, f.keys.read, sent);
        expect(again.status).toBe(202);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
        expect(again.text).toBe(first.text);
        expect(again.headers.get('ratelimit')).not.toBeNull();
      }
      expect(await deliveriesTo(endpoint.id)).toBe(1);
      expect(await testEventsOf(f.orgId)).toBe(1);
      // Four more real tests fit the 5 a minute, so the retries spent none of it; the sixth real one does not.
      for (let i = 0; i < 4; i++) expect((await post(path, f.keys.read, randomUUID())).status).toBe(202);
      const sixthKey = randomUUID();
      expect((await post(path, f.keys.read, sixthKey)).status).toBe(429);
      // A 429 stores nothing: its key runs once the minute has passed.
      t.clock.advance(60_000);
      expect((await post(path, f.keys.read, sixthKey)).status).toBe(202);
      // And the first key still answers its own first answer.
      expect((await post(path, f.keys.read, key)).text).toBe(first.text);
      expect(await deliveriesTo(endpoint.id)).toBe(6);
      await idle();
    });

    it('what stores nothing keeps nothing: after a 429 or a 400 the same key runs', async () => {
      t.clock.freeze();
      const f = await createFirm(t.app, { publish: false });
      const { endpoint } = await createEndpoint(f, '/idem/429');
      const path = `/v1/webhook-endpoints/${endpoint.id}/test`;
      for (let i = 0; i < 5; i++) expect((await post(path, f.keys.read, randomUUID())).status).toBe(202);
      const key = randomUUID();
      expect((await post(path, f.keys.read, key)).status).toBe(429);
      const limited = await post(path, f.keys.read, key);
      expect([limited.status, limited.headers.get('idempotent-replayed')]).toEqual([429, null]);
      t.clock.advance(60_000);
      const ran = await post(path, f.keys.read, key);
      expect([ran.status, ran.headers.get('idempotent-replayed')]).toEqual([202, null]);
      // A 400 (not a uuid) stores nothing either: the key is then free for another route.
      const other = randomUUID();
      expect((await post('/v1/webhook-endpoints/nope/test', f.keys.read, other)).status).toBe(400);
      t.clock.advance(60_000);
      expect((await post(path, f.keys.read, other)).status).toBe(202);
      await idle();
    });

    it('a concurrent duplicate answers 409 idempotency_key_in_use with Retry-After while the first runs; then the stored answer', async () => {
      const f = await createFirm(t.app, { publish: false });
      const { endpoint } = await createEndpoint(f, '/idem/concurrent');
      const path = `/v1/webhook-endpoints/${endpoint.id}/test`;
      const key = randomUUID();
      // The endpoint's row held by another transaction: the first request waits inside its own, holding the key.
      const blocker = new pg.Client({ connectionString: t.databaseUrl });
      await blocker.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [endpoint.id]);
        const first = post(path, f.keys.read, key);
        await waitFor(
          async () => (await t.sql(`SELECT 1 FROM idempotency_keys WHERE idempotency_key = $1 AND claim_token IS NOT NULL`, [key])).length,
          'the first request to hold its key',
        );
        const duplicate = await post(path, f.keys.read, key);
        expect(duplicate.status).toBe(409);
        expect(duplicate.headers.get('retry-after')).toBe('1');
        expect(duplicate.body).toMatchObject({ code: 'idempotency_key_in_use', retry_after: 1 });
        // The same key on another route is another request: 422 even while the first runs.
        expect((await post(`/v1/webhook-endpoints/${randomUUID()}/test`, f.keys.read, key)).body.code).toBe('idempotency_key_reused');
        await blocker.query('COMMIT');
        const done = await first;
        expect(done.status).toBe(202);
        const retried = await post(path, f.keys.read, key);
        expect([retried.status, retried.headers.get('idempotent-replayed'), retried.text]).toEqual([202, 'true', done.text]);
      } finally {
        await blocker.end();
      }
      // Many at once: one runs; each other one is told it is in use or gets the replay, never a second delivery.
      const burst = randomUUID();
      t.clock.advance(60_000);
      const answers = await Promise.all(Array.from({ length: 6 }, () => post(path, f.keys.read, burst)));
      const ran = answers.filter((a) => a.status === 202 && a.headers.get('idempotent-replayed') === null);
      expect(ran).toHaveLength(1);
      for (const a of answers.filter((x) => x !== ran[0])) {
        if (a.status === 202) expect(a.text).toBe(ran[0].text);
        else expect(a.body.code).toBe('idempotency_key_in_use');
      }
      expect(await deliveriesTo(endpoint.id)).toBe(2);
      t.clock.reset();
      await idle();
    });

    it('422 idempotency_key_reused for the key on another route; another API key has its own keys; a refusal is replayed', async () => {
      const f = await createFirm(t.app, { publish: false });
      const a = (await createEndpoint(f, '/idem/a')).endpoint.id;
      const b = (await createEndpoint(f, '/idem/b')).endpoint.id;
      const key = randomUUID();
      expect((await post(`/v1/webhook-endpoints/${a}/test`, f.keys.read, key)).status).toBe(202);
      const reused = await post(`/v1/webhook-endpoints/${b}/test`, f.keys.read, key);
      expect(reused.status).toBe(422);
      expect(reused.body).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
      expect(reused.headers.get('idempotent-replayed')).toBeNull();
      const [delivery] = (await t.get(`/v1/webhook-deliveries?endpoint_id=${a}`, { key: f.keys.read })).body.deliveries;
      expect((await post(`/v1/webhook-deliveries/${delivery.id}/redeliver`, f.keys.read, key)).status).toBe(422);
      expect(await deliveriesTo(b)).toBe(0);
      // Two API keys never share a key: the other key's request runs.
      const theirs = await post(`/v1/webhook-endpoints/${a}/test`, f.keys['read-update-leads'], key);
      expect([theirs.status, theirs.headers.get('idempotent-replayed')]).toEqual([202, null]);
      // A 404 the operation answered is stored and replayed like a success.
      const missing = `/v1/webhook-deliveries/${randomUUID()}/redeliver`;
      const gone = randomUUID();
      const notFound = await post(missing, f.keys.read, gone);
      expect(notFound.status).toBe(404);
      const again = await post(missing, f.keys.read, gone);
      expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([404, 'true', notFound.text]);
      await idle();
    });

    it('a malformed Idempotency-Key is refused 400 naming it, before anything runs', async () => {
      const f = await createFirm(t.app, { publish: false });
      const { endpoint } = await createEndpoint(f, '/idem/bad');
      const path = `/v1/webhook-endpoints/${endpoint.id}/test`;
      for (const bad of ['x'.repeat(256), 'two words', '"unterminated', '""']) {
        const r = await post(path, f.keys.read, bad);
        expect([bad.slice(0, 20), r.status, r.body.code, r.body.param]).toEqual([
          bad.slice(0, 20),
          400,
          'invalid_request',
          'idempotency-key',
        ]);
      }
      expect(await deliveriesTo(endpoint.id)).toBe(0);
      expect((await post(path, f.keys.read, `${randomUUID()}-${'x'.repeat(218)}`)).status).toBe(202);
      await idle();
    });
  });
}
