import { Injectable } from '@nestjs/common';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { computed, selectList, type RowOf } from '../database/select-list.js';
import { Database, type Tx } from '../database/sql.js';
import { EventEntity } from './entities/event.entity.js';
import { EVENTS_CHANNEL, feedKeyOf, type EventFeed } from './events-listener.js';

const RECORD_PROPERTIES = ['seq', 'id', 'orgId', 'type', 'test', 'livemode', 'occurredAt', 'data', 'history'] as const;

/** The writing transaction's id (`xid8`, which no entity can type: read as text). */
const TXID = computed<{ txid: string }>('e.txid::text AS txid');
export const EVENT = selectList(EventEntity, 'e', RECORD_PROPERTIES).and(TXID);
const WRITTEN = selectList(EventEntity, null, ['seq', 'id', 'history']);

/** Column names: under the reads' alias, and alone (the INSERT's; `txid`, an `xid8`, is no entity column). */
const [e, col] = [columns(EventEntity, 'e'), columns(EventEntity)];

/** An event as the service holds it (`seq` as text: a bigint). */
export type EventRecord = Pick<EventEntity, (typeof RECORD_PROPERTIES)[number]>;

/** An event as read: its columns plus the writing transaction's id (set by the database, never mapped for writes). */
export type EventRow = RowOf<typeof EVENT>;

/** What the service makes of a new event; the database adds its position (and so the middle of its id). */
export type NewEvent = Omit<EventRecord, 'seq' | 'id' | 'history' | 'data'> & {
  /** The id's ends (src/common/ids.ts, eventIdEnds): its time, and a random tail. */
  idEnds: { head: string; tail: string };
  data: object;
  traceContext: string | null;
};

const FEED: EventFeed = { orgId: DummyValue.UUID, livemode: true };

/**
 * The events log's writes and single reads, written out (its pages: event-pages.repository.ts). An event's position
 * is `(history, txid, seq)`: the database history it was written in (`log_history()`, migrations
 * 1764300000000-log-histories.ts), its writing transaction (an `xid8`) and its sequence number.
 */
@Injectable()
export class EventsRepository {
  constructor(private readonly db: Database) {}

  /**
   * In the caller's transaction. The database sets the position and puts it in the id, between the ends the service
   * made (`evt_` + time, position, random tail), so an id a promotion loses still says where it stood. `data` is
   * stored as JSON, member order kept.
   */
  @GenerateSql({ params: [SQL, { idEnds: { head: 'evt_', tail: '' }, data: {} }] })
  async insert(tx: Tx, values: NewEvent): Promise<EventRecord> {
    // The notification (feed:type) reaches waiting requests (event-waits.ts) only if and when this transaction commits.
    const [row] = await tx.query(
      WRITTEN,
      `WITH here AS (SELECT log_history() AS history, pg_current_xact_id() AS txid)
       INSERT INTO events (${col.id}, ${col.history}, txid, ${col.orgId}, ${col.type}, ${col.test}, ${col.occurredAt}, ${col.data}, ${col.traceContext}, ${col.livemode})
       SELECT $1 || log_position_code(here.history, here.txid) || $2, here.history, here.txid, $3, $4, $5, $6, $7, $8, $10
         FROM here
       RETURNING ${WRITTEN}, pg_notify($9, $11 || ':' || $4) AS notified`,
      [
        values.idEnds.head,
        values.idEnds.tail,
        values.orgId,
        values.type,
        values.test,
        values.occurredAt,
        JSON.stringify(values.data),
        values.traceContext,
        EVENTS_CHANNEL,
        values.livemode,
        feedKeyOf(values),
      ],
    );
    const { traceContext: _stored, idEnds: _ends, ...event } = values;
    return { ...event, data: values.data as Record<string, unknown>, seq: row.seq, id: row.id, history: row.history };
  }

  /** The history this database writes in now (null on a standby that finds it unlisted). */
  @GenerateSql({ params: [], rows: 'one' })
  async currentHistory(): Promise<number | null> {
    const [row] = await this.db.query<{ history: number | null }>('SELECT log_history() AS history');
    return row.history;
  }

  @GenerateSql({ params: [FEED, DummyValue.TEXT, DummyValue.DATE] })
  async findOne(feed: EventFeed, eventId: string, since: Date): Promise<EventRow | null> {
    const [row] = await this.db.query(
      EVENT,
      `SELECT ${EVENT} FROM events e WHERE ${e.orgId} = $1 AND ${e.id} = $2 AND ${e.occurredAt} >= $3 AND ${e.livemode} = $4`,
      [feed.orgId, eventId, since, feed.livemode],
    );
    return row ?? null;
  }
}
