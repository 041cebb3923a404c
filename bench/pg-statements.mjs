/**
 * PostgreSQL's side of a benchmark, statement by statement (pg_stat_statements), when BENCH_PG_STATEMENTS=1.
 *
 * CPU per request read from /proc says how much PostgreSQL worked; this says on what. The extension must be
 * loaded at server start, so only a server the bench starts itself (embedded) can have it: `serverFlags()` gives
 * the settings to start it with. Execution time is the executor's (planning and the protocol are not in it),
 * so the figures apportion PostgreSQL's work between statements rather than add up to its CPU.
 */
export const statementsWanted = () => process.env.BENCH_PG_STATEMENTS === '1';

/** Server settings for a bench-started PostgreSQL: the extension, counting statements inside functions too. */
export const serverFlags = () =>
  statementsWanted()
    ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all', '-c', 'pg_stat_statements.max=2000']
    : [];

/** Starts counting afresh (for every database on the server); a no-op unless wanted. */
export async function resetStatements(client) {
  if (!statementsWanted()) return;
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await client.query('SELECT pg_stat_statements_reset()');
}

/**
 * The statements run since the last reset in `client`'s database, heaviest first, each per `unit` of work
 * (per 1,000 deliveries, per request), of one role when `role` is given: how many times it ran, executor ms, rows, buffers hit or read,
 * buffers dirtied and WAL bytes. Null unless wanted.
 */
export async function statementsSince(client, units, { top = 12, per = 1, role = null } = {}) {
  if (!statementsWanted()) return null;
  const { rows } = await client.query(
    `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls::float8, total_exec_time::float8 AS ms, rows::float8,
            (shared_blks_hit + shared_blks_read)::float8 AS blocks, shared_blks_dirtied::float8 AS dirtied, wal_bytes::float8
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT LIKE '%pg_stat_statements%'
        AND ($2::text IS NULL OR userid = (SELECT oid FROM pg_roles WHERE rolname = $2))
      ORDER BY total_exec_time DESC LIMIT $1`,
    [top, role],
  );
  const scale = per / Math.max(1, units);
  const all = rows.map((r) => ({
    statement: r.query.length > 110 ? `${r.query.slice(0, 107)}...` : r.query,
    calls: +(r.calls * scale).toFixed(2),
    exec_ms: +(r.ms * scale).toFixed(3),
    rows: +(r.rows * scale).toFixed(1),
    blocks: +(r.blocks * scale).toFixed(1),
    dirtied: +(r.dirtied * scale).toFixed(1),
    wal_bytes: Math.round(r.wal_bytes * scale),
  }));
  return all;
}

/** The rows as one text table for stderr. */
export const statementsTable = (title, rows) =>
  rows === null
    ? ''
    : [
        title,
        '| exec ms | calls | rows | blocks | dirtied | WAL bytes | statement |',
        '| ---: | ---: | ---: | ---: | ---: | ---: | --- |',
        ...rows.map(
          (r) =>
            `| ${r.exec_ms} | ${r.calls} | ${r.rows} | ${r.blocks} | ${r.dirtied} | ${r.wal_bytes} | \`${r.statement.replace(/\|/g, '\\|')}\` |`,
        ),
      ].join('\n') + '\n';
