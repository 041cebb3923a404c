import { DataSource } from 'typeorm';
import { AuditService } from '../src/audit';
import pg from 'pg';
import { createTestDatabase } from './support/database';
import { createFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

describe('audit entries of reads', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The throw-away test cluster commits asynchronously by default; this database commits synchronously,
    // as a production one does, so a relaxed commit leaking onto a pooled connection would show.
    const databaseUrl = await createTestDatabase();
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${new URL(databaseUrl).pathname.slice(1)}" SET synchronous_commit = on`);
    await admin.end();
    t = await startTestApp({ databaseUrl });
  });
  afterAll(() => t.close());

  it('are written, and their relaxed commit never leaks to other work on the pooled connections', async () => {
    const firm = await createFirm(t.app);
    const audit = t.app.get(AuditService);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        audit.recordRead({
          orgId: firm.orgId,
          keyId: firm.keyIds.read,
          action: 'calls.listed',
          resourceType: 'call',
          resourceIds: [`c${i}`],
        }),
      ),
    );
    const rows = await t.sql(`SELECT actor_type, actor_id, resource_ids FROM audit_log WHERE org_id = $1 AND action = 'calls.listed'`, [
      firm.orgId,
    ]);
    expect(rows).toHaveLength(30);
    expect(rows[0]).toMatchObject({ actor_type: 'api_key', actor_id: firm.keyIds.read });
    // Every pooled connection (hold them all at once) still commits synchronously.
    const ds = t.app.get(DataSource);
    const runners = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const r = ds.createQueryRunner();
        await r.connect();
        return r;
      }),
    );
    try {
      const settings = await Promise.all(runners.map(async (r) => (await r.query('SHOW synchronous_commit'))[0].synchronous_commit));
      expect(new Set(settings)).toEqual(new Set(['on']));
    } finally {
      await Promise.all(runners.map((r) => r.release()));
    }
  });

  const readOf = (orgId: string, keyId: string, i: number) =>
    t.app
      .get(AuditService)
      .recordRead({ orgId, keyId, action: 'leads.listed', resourceType: 'lead', resourceIds: [`l${i}`, `m${i}`], details: { i } });
  const leadReads = (orgId: string) =>
    t.sql(`SELECT xmin::text AS tx, resource_ids, details FROM audit_log WHERE org_id = $1 AND action = 'leads.listed' ORDER BY id`, [
      orgId,
    ]);

  it('of concurrent reads are group-committed: fewer statements than rows, each row its own, in order', async () => {
    const firm = await createFirm(t.app);
    await Promise.all(Array.from({ length: 50 }, (_, i) => readOf(firm.orgId, firm.keyIds.read, i)));
    const rows = await leadReads(firm.orgId);
    expect(rows.map((r) => r.resource_ids)).toEqual(Array.from({ length: 50 }, (_, i) => [`l${i}`, `m${i}`]));
    expect(rows.map((r) => r.details)).toEqual(Array.from({ length: 50 }, (_, i) => ({ i })));
    // Rows written by one INSERT share its transaction id.
    expect(new Set(rows.map((r) => r.tx)).size).toBeLessThan(50);
  });

  it('fail only the read whose row cannot be written when they share an INSERT', async () => {
    const firm = await createFirm(t.app);
    const missingFirm = '00000000-0000-4000-8000-000000000000';
    const results = await Promise.allSettled([
      ...Array.from({ length: 20 }, (_, i) => readOf(firm.orgId, firm.keyIds.read, i)),
      readOf(missingFirm, firm.keyIds.read, 99),
      ...Array.from({ length: 10 }, (_, i) => readOf(firm.orgId, firm.keyIds.read, 20 + i)),
    ]);
    expect(results.map((r) => r.status)).toEqual([...Array(20).fill('fulfilled'), 'rejected', ...Array(10).fill('fulfilled')]);
    const rows = await leadReads(firm.orgId);
    expect(rows.map((r) => r.resource_ids)).toEqual(Array.from({ length: 30 }, (_, i) => [`l${i}`, `m${i}`]));
  });
});
