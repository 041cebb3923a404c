import { ApiKeyService } from '../src/auth';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { StatementCounter } from './support/statement-counter';
import { waitFor } from './support/receiver';
import { startTestApp, type TestApp } from './support/test-app';

const HOUR = 3_600_000;
const isAudit = (sql: string) => /INSERT INTO audit_log/.test(sql);
const isWrite = (sql: string) => /^\s*(WITH\b[\s\S]*?\)\s*)?(INSERT|UPDATE|DELETE)\b/i.test(sql);

/**
 * A keyed read runs at most two statements on its request path (one for a
 * single resource) besides its share of the group-committed audit rows, and
 * writes nothing else; the principal is cached per process, so the key is
 * re-checked inside those statements: a revoked or expired key fails on its
 * very next request in every process.
 */
describe('keyed reads: statements per request, and the cached principal', () => {
  let a: TestApp;
  let b: TestApp;
  let firm: TestFirm;
  let callId: string;
  let leadId: string;
  const counter = new StatementCounter();

  beforeAll(async () => {
    a = await startTestApp({ env: internalEnv });
    // A second api process on the same database, with its own principal cache.
    b = await startTestApp({ databaseUrl: a.databaseUrl });
    counter.attach(a.app);
    counter.attach(b.app);
    firm = await createFirm(a.app);
    callId = nextCallId();
    await ingestOk(a, firm.orgId, callId, fullCallDocument());
    leadId = (await a.get(`/v1/calls/${callId}`, { key: firm.keys.read })).body.call.lead_id;
    expect(leadId).toEqual(expect.any(String));
  });
  afterAll(async () => {
    counter.detach();
    await b.close();
    await a.close();
  });

  const reads = () => [
    { path: '/v1/calls?limit=100', statements: 2 },
    { path: `/v1/calls/${callId}`, statements: 1 },
    { path: '/v1/leads?limit=100', statements: 2 },
    { path: `/v1/leads/${leadId}`, statements: 1 },
  ];

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

  it('a revoked key fails with 401 on its very next request in each process, although both have it cached', async () => {
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
        expect({ path, status: refused.status, code: refused.body.code, detail: refused.body.detail }).toEqual({
          path,
          status: 401,
          code: 'unauthorized',
          detail: 'The API key has been revoked.',
        });
      }
    }
  });

  it('an expired key fails with 401 on its very next request in each process, although both have it cached', async () => {
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
