import { Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * An event of the outbox (`events`), partitioned by UTC day on `occurredAt`, which is therefore part of the
 * primary and unique keys. The log pages in commit-safe order by its position `(history, txid, seq)`: the
 * database history it was written in, the writing transaction's id, column `txid` (`xid8`, default
 * `pg_current_xact_id()`), and `seq`, with the indexes `events_org_position_idx` and `events_org_type_position_idx`:
 * TypeORM has no `xid8` type, so the entity leaves the column out (src/database/schema-beyond-entities.ts states it)
 * and names the two indexes, defined by the migrations alone (docs/decisions.md). Statements read `txid` as text.
 */
@Entity('events')
@Unique('events_id_key', ['id', 'occurredAt'])
@Index('events_occurred_at_idx', ['occurredAt'])
@Index('events_org_position_idx', { synchronize: false })
@Index('events_org_type_position_idx', { synchronize: false })
export class EventEntity {
  /** A bigint: node-postgres reads it as text. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'events_pkey' })
  seq: string;

  @Column('text')
  id: string;

  @Column('uuid')
  @ForeignKey('orgs', { name: 'events_org_id_fkey', onDelete: 'CASCADE' })
  orgId: string;

  @Column('text')
  type: string;

  @Column('boolean', { default: false })
  test: boolean;

  @PrimaryColumn('timestamptz', { primaryKeyConstraintName: 'events_pkey' })
  occurredAt: Date;

  /** json, not jsonb: keeps member order, so the body signed and sent equals what the API lists. */
  @Column('json')
  data: Record<string, unknown>;

  /**
   * The database history it was written in (log_histories, the kernel's): first in the log's order, so nothing a
   * promoted standby writes can sort before what it kept.
   */
  @Column('integer', { default: () => 'log_history()' })
  history: number;

  /** The W3C traceparent of the span that recorded it, when tracing was on: its delivery attempts continue that trace. */
  @Column('text', { nullable: true })
  traceContext: string | null;

  /** false: an event of test-mode data, listed to test keys and fanned out to test endpoints only. */
  @Column('boolean', { default: true })
  livemode: boolean;
}
