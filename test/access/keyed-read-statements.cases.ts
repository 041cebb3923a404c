import type { FastifyInstance } from 'fastify';
import { ApiKeyService } from '../../src/auth';
import { registeredRoutes } from '../../src/common/http/route-table';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { requestAt } from '../support/http';
import { serviceEnv, startService, stopService, type ServiceProcess } from '../support/processes';
import { StatementCounter } from '../support/statement-counter';
import { waitFor } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';

const HOUR = 3_600_000;
const isAudit = (sql: string) => /INSERT INTO audit_log/.test(sql);
const isWrite = (sql: string) => /^\s*(WITH\b[\s\S]*?\)\s*)?(INSERT|UPDATE|DELETE)\b/i.test(sql);

/**
 * A keyed read runs at most two statements on its request path (one for a
 * single resource) besides its share of the group-committed audit rows, and
 * writes nothing else; the principal is cached per process, so the key is
 * re-checked inside those statements: a revoked or expired key fails on its
 * very next request in every process. The routes are every one the app
 * registers with a `keyedRead` declaration, read from its route table.
 */
describe('keyed reads: statements per request, and the cached principal', () => {
  let a: TestApp;
  let b: TestApp;
  let firm: TestFirm;
  /** A value for each path parameter a keyed read can have: an id the firm has. */
  let ids: Record<string, string>;
  const counter = new StatementCounter();

  beforeAll(async () => {
    a = await startTestApp({ env: internalEnv });
    // A second app on the same database, with its own principal cache.
    b = await startTestApp({ databaseUrl: a.databaseUrl });
    counter.attach(a.app);
    counter.attach(b.app);
    firm = await createFirm(a.app);
    const callId = nextCallId();
    await ingestOk(a, firm.orgId, callId, fullCallDocument());
    const leadId = (await a.get(`/v1/calls/${callId}`, { key: firm.keys.read })).body.call.lead_id;
    expect(leadId).toEqual(expect.any(String));
    ids = { call_id: callId, lead_id: leadId };
  });
  afterAll(async () => {
    counter.detach();
    await b.close();
    await a.close();
  });

  /**
   * Every route declared keyedRead, from the registered route table, as a path to GET (its parameters filled with
   * the firm's ids), and its statements: one for a single resource (a path parameter), two for a list.
   */
  const reads = () => {
    const keyed = registeredRoutes(a.app.getHttpAdapter().getInstance() as FastifyInstance).filter(
      (r) => r.method === 'GET' && r.declaration?.access.kind === 'key' && r.declaration.access.recheckedInRead === true,
    );
    return keyed.map((r) => {
      const params = [...r.url.matchAll(/:(\w+)/g)].map((m) => m[1]);
      for (const p of params) if (!(p in ids)) throw new Error(`${r.url}: no id for :${p}; give this test one`);
      const path = r.url.replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(ids[p]));
      return { template: r.url, path: params.length ? path : `${path}?limit=100`, statements: params.length ? 1 : 2 };
    });
  };

  it('reads the keyed routes from the route table: calls and leads, list and detail', () => {
    expect(reads().map((r) => r.template)).toEqual(
      expect.arrayContaining(['/v1/calls', '/v1/calls/:call_id', '/v1/leads', '/v1/leads/:lead_id']),
    );
  });

  it('runs at most two statements (one for a single resource) besides the audit rows, and writes nothing else', async () => {
    for (const { path, statements } of reads()) {
      // The first request of the key in this process looks the key up and leases rate-limit tokens.
      expect((await a.get(path, { key: firm.keys.read })).status).toBe(200);
      const answer = await a.get(path, { key: firm.keys.read });
      expect(answer.status).toBe(200);
      const ran = counter.lastRequest();
      const data = ran.filter((sql) => !isAudit(sql));
      expect({ path, count: data.length, writes: data.filter(isWrite) }).toEqual({ path, count: statements, writes: [] });
      expect(ran.filter(isAudit).length).toBeLessThanOrEqual(1);
    }
  });

  it("writes a key's last_used_at after the answer, not on the request path", async () => {
    const { key, summary } = await a.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'first use', set: 'read' });
    expect((await a.get('/v1/calls?limit=1', { key })).status).toBe(200);
    expect(counter.lastRequest().filter((sql) => /UPDATE api_keys/.test(sql))).toEqual([]);
    await waitFor(
      async () => (await a.sql('SELECT last_used_at FROM api_keys WHERE id = $1', [summary.id]))[0].last_used_at !== null || null,
      'last_used_at to be written',
    );
    await a.app.get(ApiKeyService).revoke(summary.id);
  });

  describe('in two api processes', () => {
    let apis: ServiceProcess[] = [];
    beforeAll(async () => {
      apis = await Promise.all([startService('api', serviceEnv(a.databaseUrl)), startService('api', serviceEnv(a.databaseUrl))]);
    });
    afterAll(() => Promise.all(apis.map((p) => stopService(p))));

    const get = (p: ServiceProcess, path: string, key: string) => requestAt(p.baseUrl!, 'GET', path, { key });

    it('a revoked key fails with 401 on its very next request to each, although both have it cached', async () => {
      const keys = a.app.get(ApiKeyService);
      for (const { path } of reads()) {
        const { key, summary } = await keys.create({ orgId: firm.orgId, name: 'to revoke', set: 'read' });
        // Each process looks the key up once and then holds its principal (for 30 s).
        for (const p of [...apis, ...apis]) expect({ path, status: (await get(p, path, key)).status }).toEqual({ path, status: 200 });
        await keys.revoke(summary.id);
        for (const p of [apis[1], apis[0]]) {
          const refused = await get(p, path, key);
          expect({ path, status: refused.status, code: refused.body.code, detail: refused.body.detail }).toEqual({
            path,
            status: 401,
            code: 'unauthorized',
            detail: 'The API key has been revoked.',
          });
        }
      }
    });
  });

  it('a revoked key fails with 401 on its next request in each app of one process, its principal cached in both', async () => {
    const keys = a.app.get(ApiKeyService);
    for (const { path } of reads()) {
      const { key, summary } = await keys.create({ orgId: firm.orgId, name: 'to revoke', set: 'read' });
      for (const t of [a, b]) expect((await t.get(path, { key })).status).toBe(200);
      // Cached: the next request of the key runs no lookup of it.
      expect((await b.get(path, { key })).status).toBe(200);
      expect(counter.lastRequest().filter((sql) => /FROM api_keys WHERE prefix/.test(sql))).toEqual([]);
      await keys.revoke(summary.id);
      for (const t of [b, a]) {
        const refused = await t.get(path, { key });
        expect({ path, status: refused.status, code: refused.body.code }).toEqual({ path, status: 401, code: 'unauthorized' });
      }
    }
  });

  it('an expired key fails with 401 on its very next request in each app, although both have it cached', async () => {
    const keys = a.app.get(ApiKeyService);
    for (const { path } of reads()) {
      const expiresAt = new Date(a.clock.now().getTime() + HOUR);
      const { key } = await keys.create({ orgId: firm.orgId, name: 'short-lived', set: 'read', expiresAt });
      for (const t of [a, b]) expect((await t.get(path, { key })).status).toBe(200);
      a.clock.advance(HOUR + 1000);
      b.clock.advance(HOUR + 1000);
      try {
        for (const t of [b, a]) {
          const refused = await t.get(path, { key });
          expect({ path, status: refused.status, detail: refused.body.detail }).toEqual({
            path,
            status: 401,
            detail: 'The API key has expired.',
          });
        }
      } finally {
        a.clock.reset();
        b.clock.reset();
      }
    }
  });
});
