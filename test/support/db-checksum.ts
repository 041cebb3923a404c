import pg from 'pg';
import { waitFor } from './receiver';
import type { TestApp } from './test-app';

/**
 * What "the database is unchanged" means for a refused request
 * (docs/decisions.md): every row of every table is the same, except
 *  - rate_limit_buckets: the per-key request count, taken by every keyed
 *    request once its key and scope are accepted, refused or not (that is
 *    its job);
 *  - api_keys.last_used_at: moved by any authenticated request, at most once
 *    a minute;
 *  - idempotency_keys: a refusal the operation itself answered (404, 409) to a
 *    request sent with an Idempotency-Key is stored there, so that a retry
 *    replays it (that is its job; src/idempotency).
 * Everything else, audit_log included, must not move: a refused request
 * reads nothing, so it audits nothing. The one refusal that carries data is
 * PATCH's 409 status_conflict (the lead, in its `lead` member): it writes the
 * audit entry of that read and nothing else (test/fuzz.e2e.spec.ts).
 */
const SKIPPED_TABLES = new Set(['rate_limit_buckets', 'idempotency_keys']);
const SKIPPED_COLUMNS: Record<string, string[]> = { api_keys: ['last_used_at'] };

export type TableChecksums = Record<string, string>;

/**
 * A checksum per table over a connection of its own: the row count and the
 * sum of the rows' md5s (order-free, so no sort), as one prepared statement
 * planned once, since the fuzz takes one after nearly every request.
 */
export class TableChecksummer {
  private constructor(
    private readonly client: pg.Client,
    private readonly text: string,
  ) {}

  /**
   * Every table of the public schema, found from the catalog: a table added tomorrow is in. A partition is
   * judged through its parent (which reads every partition's rows), so a day partition made ahead or a
   * refusal's allowed audit row is one table's change, not two.
   */
  static async open(databaseUrl: string): Promise<TableChecksummer> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`,
    );
    const text = rows
      .map((r) => r.name)
      .filter((name) => !SKIPPED_TABLES.has(name))
      .map((name) => {
        const row = ['to_jsonb(x)', ...(SKIPPED_COLUMNS[name] ?? []).map((c) => `'${c}'`)].join(' - ');
        return `SELECT '${name}' AS t, count(*) || ':' || coalesce(sum(('x' || left(md5((${row})::text), 15))::bit(60)::bigint), 0) AS h FROM "${name}" x`;
      })
      .join('\nUNION ALL\n');
    return new TableChecksummer(client, text);
  }

  async take(): Promise<TableChecksums> {
    const { rows } = await this.client.query<{ t: string; h: string }>({ name: 'fuzz_table_checksums', text: this.text });
    return Object.fromEntries(rows.map((r) => [r.t, r.h]));
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

/** The tables whose checksum differs. */
export const changedTables = (before: TableChecksums, after: TableChecksums): string[] =>
  Object.keys({ ...before, ...after }).filter((k) => before[k] !== after[k]);

/**
 * Waits until the background workers have nothing due (webhook deliveries and
 * mail), so a later checksum moves only because of a request.
 */
export async function waitForQuiet(t: TestApp): Promise<void> {
  await waitFor(
    async () => {
      const [r] = await t.sql(
        `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')
              + (SELECT count(*) FROM mail_outbox WHERE status = 'pending') AS busy`,
      );
      return Number(r.busy) === 0;
    },
    'no pending webhook delivery or mail',
    15_000,
  );
}
