import pg from 'pg';
import { DataSource } from 'typeorm';
import { AuditService } from '../../../src/audit';
import { Database } from '../../../src/database/sql';
import { createTestDatabase } from '../../support/database';
import { createFirm } from '../../support/factories';
import { newMediumService, type MediumService } from '../../support/medium';

/** AuditService: entries of changes (in their transaction) and of reads (group-committed), against the real database. */
describe('AuditService', () => {
  let m: MediumService<AuditService>;

  beforeAll(async () => {
    // The throw-away test cluster commits asynchronously by default; this database commits synchronously,
    // as a production one does, so a relaxed commit leaking onto a pooled connection would show.
    const databaseUrl = await createTestDatabase();
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${new URL(databaseUrl).pathname.slice(1)}" SET synchronous_commit = on`);
    await admin.end();
    m = await newMediumService(AuditService, { databaseUrl });
  });
  afterAll(() => m.close());

  const readOf = (orgId: string, keyId: string, i: number) =>
    m.sut.recordRead({ orgId, keyId, action: 'leads.listed', resourceType: 'lead', resourceIds: [`l${i}`, `m${i}`], details: { i } });
  const leadReads = (orgId: string) =>
    m.sql(`SELECT xmin::text AS tx, resource_ids, details FROM audit_log WHERE org_id = $1 AND action = 'leads.listed' ORDER BY id`, [
      orgId,
    ]);

  it('reads are written, and their relaxed commit never leaks to other work on the pooled connections', async () => {
    const firm = await createFirm(m.module);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        m.sut.recordRead({
          orgId: firm.orgId,
          keyId: firm.keyIds.read,
          action: 'calls.listed',
          resourceType: 'call',
          resourceIds: [`c${i}`],
        }),
      ),
    );
    const rows = await m.sql(`SELECT actor_type, actor_id, resource_ids FROM audit_log WHERE org_id = $1 AND action = 'calls.listed'`, [
      firm.orgId,
    ]);
    expect(rows).toHaveLength(30);
    expect(rows[0]).toMatchObject({ actor_type: 'api_key', actor_id: firm.keyIds.read });
    // Every pooled connection (hold them all at once) still commits synchronously.
    const ds = m.module.get(DataSource);
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

  it('reads made at once are group-committed: fewer statements than rows, each row its own, in order', async () => {
    const firm = await createFirm(m.module);
    await Promise.all(Array.from({ length: 50 }, (_, i) => readOf(firm.orgId, firm.keyIds.read, i)));
    const rows = await leadReads(firm.orgId);
    expect(rows.map((r) => r.resource_ids)).toEqual(Array.from({ length: 50 }, (_, i) => [`l${i}`, `m${i}`]));
    expect(rows.map((r) => r.details)).toEqual(Array.from({ length: 50 }, (_, i) => ({ i })));
    // Rows written by one INSERT share its transaction id.
    expect(new Set(rows.map((r) => r.tx)).size).toBeLessThan(50);
  });

  it('a read whose row cannot be written fails alone when it shares an INSERT', async () => {
    const firm = await createFirm(m.module);
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

  it('a change’s entry commits or rolls back with its transaction; list gives the firm’s entries newest first, by action', async () => {
    const firm = await createFirm(m.module, { publish: false });
    const entry = (action: string) => ({
      orgId: firm.orgId,
      actor: { type: 'owner' as const, id: null },
      action,
      resourceType: 'lead',
      resourceIds: ['lead_a'],
    });
    const db = m.module.get(Database);
    await db.transaction((tx) => m.sut.record(entry('lead.first'), tx));
    await expect(
      db.transaction(async (tx) => {
        await m.sut.record(entry('lead.rolled_back'), tx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await m.sut.recordStandalone(entry('lead.second'));
    const actions = (await m.sut.list(firm.orgId)).map((e) => e.action);
    // createFirm's keys are audited too; the lead entries are the newest.
    expect(actions.slice(0, 2)).toEqual(['lead.second', 'lead.first']);
    expect(actions).not.toContain('lead.rolled_back');
    expect(await m.sut.list(firm.orgId, { action: 'lead.first' })).toEqual([
      {
        at: expect.stringMatching(/Z$/),
        actor_type: 'owner',
        actor_id: null,
        action: 'lead.first',
        resource_type: 'lead',
        resource_ids: ['lead_a'],
        details: null,
      },
    ]);
  });
});
