import { Injectable } from '@nestjs/common';
import { Database } from './sql.js';

/** The physical standbys streaming from this server: a logical subscriber (a logical slot's walsender) is none. */
const PHYSICAL_STANDBYS = `pg_stat_replication r WHERE r.state = 'streaming'
  AND r.pid NOT IN (SELECT s.active_pid FROM pg_replication_slots s WHERE s.slot_type = 'logical' AND s.active_pid IS NOT NULL)`;

/**
 * One reading of what a promotion would keep: this server's history and snapshot xmin, its WAL insert position
 * read after that snapshot (so every transaction below the xmin committed before it), and the furthest position a
 * streaming standby has flushed. WAL positions as decimal byte offsets.
 */
export interface ReplicationSample {
  history: number | null;
  xmin: string;
  insertedTo: bigint;
  /** null: no physical standby streams (or this role may not read their positions: it needs pg_monitor). */
  standbyFlushedTo: bigint | null;
}

/** How durable a commit is: whether it waits for a synchronous standby, and how many standbys stream. */
export interface ReplicationStatus {
  /** synchronous_commit waits for a standby and one is connected as sync or quorum. */
  synchronous: boolean;
  standbys: number;
  synchronousStandbys: number;
  synchronousStandbyNames: string;
  synchronousCommit: string;
}

/** The database's replication, as the events log's publication and the operator's readings need it. */
@Injectable()
export class Replication {
  constructor(private readonly db: Database) {}

  async sample(): Promise<ReplicationSample> {
    const [row] = await this.db.query<{ history: number | null; xmin: string; inserted: string; flushed: string | null }>(
      `SELECT log_history() AS history, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin,
              (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::text AS inserted,
              (SELECT (max(r.flush_lsn) - '0/0'::pg_lsn)::text FROM ${PHYSICAL_STANDBYS}) AS flushed`,
    );
    return {
      history: row.history,
      xmin: row.xmin,
      insertedTo: BigInt(row.inserted),
      standbyFlushedTo: row.flushed === null ? null : BigInt(row.flushed),
    };
  }

  async status(): Promise<ReplicationStatus> {
    const [row] = await this.db.query<{ names: string; commit: string; standbys: number; sync: number }>(
      `SELECT current_setting('synchronous_standby_names') AS names, current_setting('synchronous_commit') AS commit,
              (SELECT count(*)::integer FROM ${PHYSICAL_STANDBYS}) AS standbys,
              (SELECT count(*)::integer FROM ${PHYSICAL_STANDBYS} AND r.sync_state IN ('sync', 'quorum')) AS sync`,
    );
    const waits = row.names.trim() !== '' && ['on', 'remote_write', 'remote_apply'].includes(row.commit);
    return {
      synchronous: waits && row.sync > 0,
      standbys: row.standbys,
      synchronousStandbys: row.sync,
      synchronousStandbyNames: row.names,
      synchronousCommit: row.commit,
    };
  }
}
