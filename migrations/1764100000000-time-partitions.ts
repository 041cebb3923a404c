import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The tables that grow with time, each by the column that says when its row was written. */
const TABLES = [
  { table: 'events', key: 'occurred_at' },
  { table: 'webhook_deliveries', key: 'created_at' },
  { table: 'audit_log', key: 'at' },
  { table: 'mail_outbox', key: 'created_at' },
];

const DAY_MS = 86_400_000;
/** Daily partitions reach this far back; anything older (an audit log kept for years) shares one partition. */
const DAILY_BACK_DAYS = 40;
/** And this far ahead; the retention job keeps a week ahead from then on (src/common/retention). */
const AHEAD_DAYS = 7;

interface Captured {
  indexes: { name: string; def: string }[];
  keys: { name: string; type: 'p' | 'u'; cols: string[] }[];
  foreignKeys: { name: string; def: string }[];
  triggers: { def: string }[];
  grants: { grantee: string; privilege: string }[];
  sequences: { seq: string; col: string }[];
  reloptions: string[] | null;
}

const utcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
const dayName = (day: Date) => day.toISOString().slice(0, 10).replaceAll('-', '');

/**
 * events, webhook_deliveries, audit_log and mail_outbox become tables partitioned by day
 * (`PARTITION BY RANGE` on their creation time), so retention drops a whole day at once instead of
 * deleting rows (docs/decisions.md). Each table is rebuilt generically from the old one, so columns,
 * defaults, checks, indexes, foreign keys, triggers, grants and owned sequences added by any earlier
 * migration come along unnamed; every row is copied. A primary key or unique constraint gains the
 * partition key (PostgreSQL requires it). A DEFAULT partition takes any row outside the daily ones (a
 * clock far off, a partition not yet made), so no insert ever fails for its date.
 */
export class TimePartitions1764100000000 implements MigrationInterface {
  name = 'TimePartitions1764100000000';

  async up(q: QueryRunner): Promise<void> {
    for (const { table, key } of TABLES) await rebuild(q, table, { partitionKey: key });
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table, key } of TABLES) await rebuild(q, table, { dropKeyFromConstraints: key });
  }
}

/** Renames `table` aside, creates it anew (partitioned or plain), copies every row, then drops the old one. */
async function rebuild(q: QueryRunner, table: string, mode: { partitionKey?: string; dropKeyFromConstraints?: string }): Promise<void> {
  const old = `${table}_rebuilt_from`;
  await q.query(`ALTER TABLE ${table} RENAME TO ${old}`);
  const captured = await capture(q, old);
  // Index and constraint names are unique per schema: free them for the new table.
  for (const i of captured.indexes) await q.query(`DROP INDEX ${quote(i.name)}`);
  for (const k of captured.keys) await q.query(`ALTER TABLE ${old} DROP CONSTRAINT ${quote(k.name)}`);
  const partitioned = mode.partitionKey ? ` PARTITION BY RANGE (${mode.partitionKey})` : '';
  const storage = !mode.partitionKey && captured.reloptions ? ` WITH (${captured.reloptions.join(', ')})` : '';
  await q.query(`CREATE TABLE ${table} (LIKE ${old} INCLUDING ALL EXCLUDING INDEXES)${partitioned}${storage}`);
  if (mode.partitionKey) await createPartitions(q, table, old, mode.partitionKey, captured.reloptions);
  for (const s of captured.sequences) await q.query(`ALTER SEQUENCE ${s.seq} OWNED BY ${table}.${quote(s.col)}`);
  await q.query(`INSERT INTO ${table} SELECT * FROM ${old}`);
  await restoreIdentity(q, table);
  await restore(q, table, old, captured, mode);
  await q.query(`DROP TABLE ${old}`);
  await q.query(`ANALYZE ${table}`);
}

async function capture(q: QueryRunner, old: string): Promise<Captured> {
  const indexes: Captured['indexes'] = await q.query(
    `SELECT i.relname AS name, pg_get_indexdef(x.indexrelid) AS def FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.conrelid = x.indrelid)`,
    [old],
  );
  const keys: Captured['keys'] = await q.query(
    `SELECT conname AS name, contype AS type,
            ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o) AS cols
       FROM pg_constraint c WHERE conrelid = $1::regclass AND contype IN ('p', 'u') ORDER BY contype`,
    [old],
  );
  const foreignKeys: Captured['foreignKeys'] = await q.query(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f'`,
    [old],
  );
  const triggers: Captured['triggers'] = await q.query(
    `SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal`,
    [old],
  );
  const grants: Captured['grants'] = await q.query(
    `SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END AS grantee, a.privilege_type AS privilege
       FROM pg_class c, aclexplode(c.relacl) a WHERE c.oid = $1::regclass AND a.grantee <> c.relowner`,
    [old],
  );
  const sequences: Captured['sequences'] = await q.query(
    `SELECT s.oid::regclass::text AS seq, a.attname AS col FROM pg_depend d
       JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
       JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
      WHERE d.refobjid = $1::regclass AND d.deptype = 'a'`,
    [old],
  );
  // A partitioned table keeps its storage options on its partitions: going back, the DEFAULT one's are the table's.
  const [{ reloptions }] = await q.query(
    `SELECT coalesce(c.reloptions, (SELECT p.reloptions FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhrelid
                                     WHERE i.inhparent = c.oid AND p.relpartbound IS NOT NULL
                                       AND pg_get_expr(p.relpartbound, p.oid) = 'DEFAULT')) AS reloptions
       FROM pg_class c WHERE c.oid = $1::regclass`,
    [old],
  );
  return { indexes, keys, foreignKeys, triggers, grants, sequences, reloptions };
}

/** Daily partitions from the oldest row's day (at most DAILY_BACK_DAYS back) to AHEAD_DAYS ahead, one before them, and DEFAULT. */
async function createPartitions(q: QueryRunner, table: string, old: string, key: string, reloptions: string[] | null): Promise<void> {
  const storage = reloptions ? ` WITH (${reloptions.join(', ')})` : '';
  const [{ oldest, today }] = await q.query(`SELECT min(${key}) AS oldest, now() AS today FROM ${old}`);
  const lastDay = utcDay(new Date(today.getTime() + AHEAD_DAYS * DAY_MS));
  const floor = utcDay(new Date(today.getTime() - DAILY_BACK_DAYS * DAY_MS));
  let day = oldest ? utcDay(oldest) : utcDay(today);
  if (day < floor) {
    await q.query(
      `CREATE TABLE ${table}_before_${dayName(floor)} PARTITION OF ${table} FOR VALUES FROM (MINVALUE) TO ($$${floor.toISOString()}$$)${storage}`,
    );
    day = floor;
  }
  for (; day <= lastDay; day = new Date(day.getTime() + DAY_MS)) {
    const next = new Date(day.getTime() + DAY_MS);
    await q.query(
      `CREATE TABLE ${table}_p${dayName(day)} PARTITION OF ${table} FOR VALUES FROM ($$${day.toISOString()}$$) TO ($$${next.toISOString()}$$)${storage}`,
    );
  }
  await q.query(`CREATE TABLE ${table}_default PARTITION OF ${table} DEFAULT${storage}`);
}

/** An identity column's new sequence starts past the copied rows (bigserial sequences are kept, so need nothing). */
async function restoreIdentity(q: QueryRunner, table: string): Promise<void> {
  const cols: { col: string }[] = await q.query(
    `SELECT attname AS col FROM pg_attribute WHERE attrelid = $1::regclass AND attidentity <> '' AND NOT attisdropped`,
    [table],
  );
  for (const { col } of cols) {
    await q.query(`SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max(${quote(col)}) FROM ${table}), 0) + 1, false)`, [
      table,
      col,
    ]);
  }
}

/** Keys (with the partition key added, or taken out going back), indexes, foreign keys, triggers and grants, on the new table. */
async function restore(
  q: QueryRunner,
  table: string,
  old: string,
  c: Captured,
  mode: { partitionKey?: string; dropKeyFromConstraints?: string },
): Promise<void> {
  for (const k of c.keys) {
    let cols = k.cols.filter((col) => col !== mode.dropKeyFromConstraints);
    if (mode.partitionKey && !cols.includes(mode.partitionKey)) cols = [...cols, mode.partitionKey];
    const kind = k.type === 'p' ? 'PRIMARY KEY' : 'UNIQUE';
    await q.query(`ALTER TABLE ${table} ADD CONSTRAINT ${quote(k.name)} ${kind} (${cols.map(quote).join(', ')})`);
  }
  const onOld = new RegExp(` ON (ONLY )?(public\\.)?${old} `);
  for (const i of c.indexes) await q.query(i.def.replace(onOld, ` ON ${table} `));
  for (const f of c.foreignKeys) await q.query(`ALTER TABLE ${table} ADD CONSTRAINT ${quote(f.name)} ${f.def}`);
  for (const t of c.triggers) await q.query(t.def.replace(onOld, ` ON ${table} `));
  for (const g of c.grants) await q.query(`GRANT ${g.privilege} ON ${table} TO ${g.grantee}`);
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
