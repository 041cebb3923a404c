import { DataSource } from 'typeorm';
import { AuditService } from '../src/audit';
import { createFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

describe('audit entries of reads', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startTestApp()));
  afterAll(() => t.close());

  it('are written, and their relaxed commit never leaks to other work on the pooled connections', async () => {
    const firm = await createFirm(t.app);
    const audit = t.app.get(AuditService);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => audit.recordRead({ orgId: firm.orgId, keyId: firm.keyIds.read, action: 'calls.listed', resourceType: 'call', resourceIds: [`c${i}`] })),
    );
    const rows = await t.sql(`SELECT actor_type, actor_id, resource_ids FROM audit_log WHERE org_id = $1 AND action = 'calls.listed'`, [firm.orgId]);
    expect(rows).toHaveLength(30);
    expect(rows[0]).toMatchObject({ actor_type: 'api_key', actor_id: firm.keyIds.read });
    // Every pooled connection (hold them all at once) still commits synchronously.
    const ds = t.app.get(DataSource);
    const runners = await Promise.all(Array.from({ length: 20 }, async () => {
      const r = ds.createQueryRunner();
      await r.connect();
      return r;
    }));
    try {
      const settings = await Promise.all(runners.map(async (r) => (await r.query('SHOW synchronous_commit'))[0].synchronous_commit));
      expect(new Set(settings)).toEqual(new Set(['on']));
    } finally {
      await Promise.all(runners.map((r) => r.release()));
    }
  });
});
