import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The events log's order survives a promotion (docs/architecture.md, "How the log's order is made").
 *
 * A promoted standby issues transaction ids (and sequence values) again that a lost tail of the old primary had
 * already used, so a position of `(txid, seq)` alone can name two events. Each history the database has lived
 * through gets a number here, `log_histories.history`, that only grows: a new row when the server runs on a
 * (system identifier, timeline) pair not yet listed, that is after a promotion (a new timeline), a point-in-time
 * restore, or a `pg_upgrade` (a new system identifier, the timeline back at 1). Events carry the history they were
 * written in, and the log orders by `(history, txid, seq)`.
 *
 * Event ids carry their position too (`log_position_code`), so an `after` naming an event a promotion lost can still
 * be placed in the log (`after_lost`, with the kept event to resume from).
 */
export class LogHistories1764300000000 implements MigrationInterface {
  name = 'LogHistories1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE log_histories (
        history integer PRIMARY KEY,
        system_identifier text NOT NULL,
        timeline integer NOT NULL,
        began_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT log_histories_server_key UNIQUE (system_identifier, timeline)
      )`);
    // The timeline this server writes on (a primary: its WAL insert timeline; a standby: the one it receives).
    await q.query(`
      CREATE FUNCTION log_timeline() RETURNS integer LANGUAGE sql VOLATILE AS $$
        SELECT CASE WHEN pg_is_in_recovery()
          THEN coalesce((SELECT received_tli FROM pg_stat_wal_receiver), (SELECT timeline_id FROM pg_control_checkpoint()))
          ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::integer END
      $$`);
    // This server's history number, listed on first use (under a lock, so two first uses agree); null on a standby
    // or a read-only session that finds it unlisted.
    await q.query(`
      CREATE FUNCTION log_history() RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        server text := current_setting('log_histories.server', true);
        tl integer := log_timeline();
        found integer;
      BEGIN
        -- A session's server never changes: its system identifier (a read of the control file) is kept for the session.
        IF coalesce(server, '') = '' THEN
          server := (SELECT system_identifier::text FROM pg_control_system());
          PERFORM set_config('log_histories.server', server, false);
        END IF;
        SELECT h.history INTO found FROM log_histories h WHERE h.system_identifier = server AND h.timeline = tl;
        IF found IS NOT NULL OR pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' THEN
          RETURN found;
        END IF;
        PERFORM pg_advisory_xact_lock(7340011);
        SELECT h.history INTO found FROM log_histories h WHERE h.system_identifier = server AND h.timeline = tl;
        IF found IS NULL THEN
          INSERT INTO log_histories (history, system_identifier, timeline)
            SELECT coalesce(max(h.history), 0) + 1, server, tl FROM log_histories h
          RETURNING history INTO found;
        END IF;
        RETURN found;
      END $$`);
    // The lineage a history belongs to: the first history's server and timeline, shared by every copy of this
    // database (a standby, a restore, an upgrade) and by no database made apart from it.
    await q.query(`
      CREATE FUNCTION log_lineage() RETURNS text LANGUAGE sql STABLE AS $$
        SELECT h.system_identifier || '/' || h.timeline FROM log_histories h ORDER BY h.history LIMIT 1
      $$`);
    // Crockford base32, fixed width (as the ids' time part, src/common/ids.ts).
    await q.query(`
      CREATE FUNCTION log_base32(value bigint, width integer) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz', ((value >> (5 * i)) & 31)::integer + 1, 1), '' ORDER BY i DESC)
          FROM generate_series(0, width - 1) AS i
      $$`);
    // An event's position as its id carries it: the history (4 characters) and the writing transaction (12).
    await q.query(`
      CREATE FUNCTION log_position_code(history integer, txid xid8) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT log_base32(history, 4) || log_base32(txid::text::bigint, 12)
      $$`);
    // Every event so far was written in the history this server is on now: number it 1.
    await q.query(`SELECT log_history()`);
    await q.query(`ALTER TABLE events ADD COLUMN history integer NOT NULL DEFAULT 1`);
    await q.query(`ALTER TABLE events ALTER COLUMN history SET DEFAULT log_history()`);
    await q.query(`CREATE INDEX events_org_position_idx ON events (org_id, history, txid, seq)`);
    await q.query(`CREATE INDEX events_org_type_position_idx ON events (org_id, type, history, txid, seq)`);
    await q.query(`DROP INDEX events_org_txid_seq_idx`);
    await q.query(`DROP INDEX events_org_type_txid_seq_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX events_org_txid_seq_idx ON events (org_id, txid, seq)`);
    await q.query(`CREATE INDEX events_org_type_txid_seq_idx ON events (org_id, type, txid, seq)`);
    await q.query(`DROP INDEX events_org_position_idx`);
    await q.query(`DROP INDEX events_org_type_position_idx`);
    await q.query(`ALTER TABLE events DROP COLUMN history`);
    for (const fn of [
      'log_position_code(integer, xid8)',
      'log_base32(bigint, integer)',
      'log_lineage()',
      'log_history()',
      'log_timeline()',
    ])
      await q.query(`DROP FUNCTION ${fn}`);
    await q.query(`DROP TABLE log_histories`);
  }
}
