import { Column, Entity, PrimaryColumn, Unique } from 'typeorm';

/**
 * One history the database has lived through (`log_histories`): a (system identifier, timeline) pair a server wrote
 * on, numbered in the order it was first seen. A promotion, a point-in-time restore or a `pg_upgrade` starts a new
 * one; the number only grows, so events carry it first in their position (the events log, docs/architecture.md).
 * Rows are made by the SQL function `log_history()` (migrations/1764300000000-log-histories.ts), never by the service.
 */
@Entity('log_histories')
@Unique('log_histories_server_key', ['systemIdentifier', 'timeline'])
export class LogHistoryEntity {
  @PrimaryColumn('integer', { primaryKeyConstraintName: 'log_histories_pkey' })
  history: number;

  /** pg_control_system().system_identifier, as text (a uint64). */
  @Column('text')
  systemIdentifier: string;

  @Column('integer')
  timeline: number;

  @Column('timestamptz', { default: () => 'now()' })
  beganAt: Date;
}
