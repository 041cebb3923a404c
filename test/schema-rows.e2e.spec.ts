import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { isTableDeclaration, type TableDeclaration } from '../src/database/tables';
import { createTestDatabase } from './support/database';

const SRC = join(process.cwd(), 'src');

/** Every table declared in a context's `*.tables.ts` (the one place row types live). */
async function declaredTables(): Promise<TableDeclaration[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.tables.ts'));
  const modules: Record<string, unknown>[] = await Promise.all(files.map((f) => import(pathToFileURL(join(SRC, f)).href)));
  return modules.flatMap((m) => Object.values(m).filter(isTableDeclaration));
}

/**
 * TypeORM's own bookkeeping, not a table of the service; and the tables described by TypeORM entities instead of
 * row types (the console's: test/medium/console-entities.spec.ts compares them with TypeORM's own schema builder).
 */
const NOT_OURS = new Set(['migrations', 'console_links', 'console_sessions']);

interface ColumnInfo {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
}

/** The migrated schema as `defineTable` writes it: `table -> column -> "type"` or `"type null"`. */
async function migratedSchema(): Promise<Map<string, Record<string, string>>> {
  const client = new pg.Client({ connectionString: await createTestDatabase() });
  await client.connect();
  try {
    const { rows } = await client.query<ColumnInfo>(
      `SELECT table_name, column_name, data_type, udt_name, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public'
          -- A partition is a piece of its table (events_p20261125), never addressed by the service: its table is declared.
          AND NOT EXISTS (SELECT 1 FROM pg_class k WHERE k.oid = format('public.%I', table_name)::regclass AND k.relispartition)
        ORDER BY table_name, ordinal_position`,
    );
    const tables = new Map<string, Record<string, string>>();
    for (const c of rows) {
      if (NOT_OURS.has(c.table_name)) continue;
      const type = c.data_type === 'ARRAY' ? `${c.udt_name.replace(/^_/, '')}[]` : c.data_type;
      const columns = tables.get(c.table_name) ?? {};
      columns[c.column_name] = c.is_nullable === 'YES' ? `${type} null` : type;
      tables.set(c.table_name, columns);
    }
    return tables;
  } finally {
    await client.end();
  }
}

describe('row types against the migrations', () => {
  it('declare every table the migrations create, each column with its type and nullability, and nothing else', async () => {
    const schema = await migratedSchema();
    const declared = new Map((await declaredTables()).map((t) => [t.name, { ...t.columns }]));
    const sorted = (o: Record<string, string> | undefined) =>
      Object.fromEntries(Object.entries(o ?? {}).sort(([a], [b]) => a.localeCompare(b)));
    for (const name of new Set([...schema.keys(), ...declared.keys()])) {
      expect({ table: name, columns: sorted(declared.get(name)) }).toEqual({ table: name, columns: sorted(schema.get(name)) });
    }
    expect([...declared.keys()].sort()).toEqual([...schema.keys()].sort());
  });
});
