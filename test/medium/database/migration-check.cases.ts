import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AccountService } from '../../../src/account';
import { schemaDrift } from '../../../src/database/schema-drift';
import { columnName } from '../../../src/database/select-list';
import { createTestDatabase } from '../../support/database';
import { newMediumService, type MediumService } from '../../support/medium';

const ROOT = process.cwd();

/** `npm run migration:check`'s own code, from the TypeScript of `src` (a scratch copy's, when given), on `databaseUrl`. */
function migrationCheck(src: string, databaseUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--no-deprecation', '--import', join(ROOT, 'test/support/ts-register.mjs'), join(src, 'migration-check.ts')],
      { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Replaces `from` (which must be there) in a file of the scratch copy. */
function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
}

/**
 * The entities against the migrations, compared by TypeORM's schema builder and by the catalogue pass
 * (src/database/schema-drift.ts), on the run's migrated template: what `npm run migration:check` runs.
 */
describe('migration check', () => {
  let m: MediumService<AccountService>;
  beforeAll(async () => {
    m = await newMediumService(AccountService);
  });
  afterAll(() => m.close());

  it('finds no difference between the entities the contexts register and the migrated schema', async () => {
    const dataSource = m.module.get(DataSource);
    expect(dataSource.entityMetadatas.map((e) => e.tableName).sort()).toEqual([
      'api_keys',
      'audit_log',
      'call_references',
      'calls',
      'console_links',
      'console_sessions',
      'events',
      'idempotency_keys',
      'key_allowances',
      'leads',
      'log_histories',
      'mail_outbox',
      'orgs',
      'rate_limit_buckets',
      'receptionist_settings',
      'recording_links',
      'recordings',
      'transcript_turns',
      'transcripts',
      'webhook_deliveries',
      'webhook_endpoints',
      'webhook_pending_deliveries',
    ]);
    expect(await schemaDrift(dataSource)).toEqual({ typeorm: [], catalogue: [] });
  });

  it('names every column in select lists as the DataSource does (one naming strategy)', () => {
    const dataSource = m.module.get(DataSource);
    const columns = dataSource.entityMetadatas.flatMap((e) =>
      e.columns.map((c) => ({
        column: `${e.tableName}.${c.databaseName}`,
        listed: `${e.tableName}.${columnName(e.target as never, c.propertyName as never)}`,
      })),
    );
    expect(columns.length).toBeGreaterThan(150);
    expect(columns.filter((c) => c.column !== c.listed)).toEqual([]);
  });

  it('names an index an entity declares that the migrated schema lacks, and one it has that no entity declares', async () => {
    const dataSource = m.module.get(DataSource);
    const declared = dataSource.getMetadata('calls').indices.find((i) => i.name === 'calls_org_started_idx');
    // Declared by name alone: the migrations define it (a DESC column TypeORM cannot say).
    expect(declared?.synchronize).toBe(false);
    const [{ def }] = await m.sql(`SELECT pg_get_indexdef('calls_org_started_idx'::regclass) AS def`);
    await m.sql('DROP INDEX calls_org_started_idx');
    await m.sql('CREATE INDEX calls_org_answered_idx ON calls (org_id, answered)');
    try {
      expect(await schemaDrift(dataSource)).toEqual({
        typeorm: ['DROP INDEX "public"."calls_org_answered_idx"'],
        catalogue: [
          'calls index calls_org_answered_idx: in the migrated schema (CREATE INDEX calls_org_answered_idx ON calls USING btree (org_id, answered)), in no entity',
          'calls index calls_org_started_idx: in the entities (named by the entity, synchronize: false), not in the migrated schema',
        ],
      });
    } finally {
      await m.sql('DROP INDEX calls_org_answered_idx');
      await m.sql(String(def));
    }
    expect(await schemaDrift(dataSource)).toEqual({ typeorm: [], catalogue: [] });
  });

  it('fails on a scratch copy whose entities no longer match, naming each difference', async () => {
    mkdirSync(join(ROOT, '.test-data'), { recursive: true });
    const scratch = mkdtempSync(join(ROOT, '.test-data', 'migration-check-'));
    try {
      cpSync(join(ROOT, 'src'), join(scratch, 'src'), { recursive: true });
      cpSync(join(ROOT, 'migrations'), join(scratch, 'migrations'), { recursive: true });
      const src = join(scratch, 'src');
      // A column's nullability (TypeORM's own diff), a partial index's predicate (the catalogue pass: TypeORM
      // compares no predicate), a fact no entity can state (the type of events.txid) and an index the migrations
      // define that its entity no longer names (both passes).
      edit(join(src, 'calls/entities/call.entity.ts'), `@Column('text', { nullable: true })\n  outcome`, `@Column('text')\n  outcome`);
      edit(join(src, 'leads/entities/lead.entity.ts'), `{ where: 'phone_e164 IS NOT NULL' }`, `{ where: 'phone IS NOT NULL' }`);
      edit(join(src, 'database/schema-beyond-entities.ts'), `'xid8 NOT NULL DEFAULT`, `'xid NOT NULL DEFAULT`);
      edit(join(src, 'leads/entities/lead.entity.ts'), `@Index('leads_org_status_idx', { synchronize: false })\n`, '');
      const run = await migrationCheck(src, await createTestDatabase());
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: '' });
      expect(run.stdout.trim().split('\n')).toEqual([
        'entities and migrations disagree: 6 difference(s)',
        '  TypeORM would run: DROP INDEX "public"."leads_org_status_idx"',
        '  TypeORM would run: ALTER TABLE "calls" ALTER COLUMN "outcome" SET NOT NULL',
        '  catalogue: calls.outcome: the entities say text NOT NULL; the migrated schema text',
        '  catalogue: events.txid: the entities say xid NOT NULL DEFAULT pg_current_xact_id(); the migrated schema xid8 NOT NULL DEFAULT pg_current_xact_id()',
        '  catalogue: leads index leads_org_phone_idx: the entities say CREATE INDEX leads_org_phone_idx ON leads USING btree (org_id, phone_e164) WHERE (phone IS NOT NULL); the migrated schema CREATE INDEX leads_org_phone_idx ON leads USING btree (org_id, phone_e164) WHERE (phone_e164 IS NOT NULL)',
        '  catalogue: leads index leads_org_status_idx: in the migrated schema (CREATE INDEX leads_org_status_idx ON leads USING btree (org_id, livemode, status, captured_at DESC, lead_id DESC)), in no entity',
      ]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
