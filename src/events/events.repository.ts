import { Injectable } from '@nestjs/common';
import { readPageWithKeyStanding, type KeyCaller, type PageWithStanding } from '../auth/index.js';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { computed, selectList, subqueryColumns, type RowOf } from '../database/select-list.js';
import { Database, type Tx } from '../database/sql.js';
import { EventEntity } from './entities/event.entity.js';
import { EVENTS_CHANNEL, feedKeyOf, type EventFeed } from './events-listener.js';

const RECORD_PROPERTIES = ['seq', 'id', 'orgId', 'type', 'test', 'livemode', 'occurredAt', 'data'] as const;

/** The writing transaction's id (`xid8`, which no entity can type: read as text). */
const TXID = computed<{ txid: string }>('e.txid::text AS txid');
const EVENT = selectList(EventEntity, 'e', RECORD_PROPERTIES).and(TXID);
const POSITION = selectList(EventEntity, 'e', ['seq', 'occurredAt']).and(TXID);
const SEQ = selectList(EventEntity, null, ['seq']);
/** The page's rows, read by the statement that joins it to the key's standing. */
const PAGE = subqueryColumns(EVENT, 'page');

/** An event as the service holds it (`seq` as text: a bigint). */
export type EventRecord = Pick<EventEntity, (typeof RECORD_PROPERTIES)[number]>;

/** An event as read: its columns plus the writing transaction's id (set by the database, never mapped for writes). */
export type EventRow = RowOf<typeof EVENT>;

/** Where an event sits in the log's commit-safe order. */
export type EventPosition = RowOf<typeof POSITION>;

const FEED: EventFeed = { orgId: DummyValue.UUID, livemode: true };
const CALLER: KeyCaller = { keyId: DummyValue.UUID, orgId: DummyValue.UUID };
const POSITIONED = { txid: '1', seq: '1', occurredAt: DummyValue.DATE };

/**
 * The events log, written out (its order is by `txid`, an `xid8`). Rows are listed in (txid, seq) order and only
 * when their writing transaction is below the reading snapshot's xmin: every transaction with a smaller id has then
 * committed or aborted, so no row can later appear before a position a reader has already passed.
 */
@Injectable()
export class EventsRepository {
  constructor(private readonly db: Database) {}

  /** In the caller's transaction; `seq` and `txid` come from the database. `data` is stored as JSON, member order kept. */
  @GenerateSql({ params: [SQL, { data: {} }] })
  async insert(tx: Tx, values: Omit<EventRecord, 'seq' | 'data'> & { data: object; traceContext: string | null }): Promise<EventRecord> {
    // The notification (feed:type) reaches waiting requests (event-waits.ts) only if and when this transaction commits.
    const [row] = await tx.query(
      SEQ,
      `INSERT INTO events (id, org_id, type, test, occurred_at, data, trace_context, livemode) VALUES ($1, $2, $3, $4, $5, $6, $7, $9)
       RETURNING ${SEQ}, pg_notify($8, $10 || ':' || $3) AS notified`,
      [
        values.id,
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
    const { traceContext: _stored, ...event } = values;
    return { ...event, data: values.data as Record<string, unknown>, seq: row.seq };
  }

  @GenerateSql({ params: [FEED, DummyValue.TEXT] })
  async position(feed: EventFeed, eventId: string): Promise<EventPosition | null> {
    const [row] = await this.db.query(POSITION, `SELECT ${POSITION} FROM events e WHERE e.org_id = $1 AND e.id = $2 AND e.livemode = $3`, [
      feed.orgId,
      eventId,
      feed.livemode,
    ]);
    return row ?? null;
  }

  @GenerateSql(
    { name: 'first page', params: [FEED, { after: null, since: DummyValue.DATE, limit: 101 }] },
    {
      name: 'of one type, after a position',
      params: [FEED, { after: POSITIONED, type: 'call.completed', since: DummyValue.DATE, limit: 101 }],
    },
  )
  async page(feed: EventFeed, opts: { after: EventPosition | null; type?: string; since: Date; limit: number }): Promise<EventRow[]> {
    const { where, params } = feedWhere(feed, opts);
    params.push(opts.limit);
    return this.db.query(
      EVENT,
      `SELECT ${EVENT} FROM events e
        WHERE ${where} AND e.txid < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY e.txid, e.seq LIMIT $${params.length}`,
      params,
    );
  }

  /**
   * `page` in one statement with the calling key's standing (auth's readPageWithKeyStanding): what a waiting request
   * runs when it wakes, so the key is judged in the snapshot that reads the events, and an event committed after the
   * key was revoked is never read with it.
   */
  @GenerateSql({ params: [CALLER, FEED, { after: POSITIONED, since: DummyValue.DATE, limit: 101 }] })
  async pageWithStanding(
    caller: KeyCaller,
    feed: EventFeed,
    opts: { after: EventPosition | null; type?: string; since: Date; limit: number },
  ): Promise<PageWithStanding<EventRow>> {
    // $1 and $2 are the standing's (the key, the firm).
    const { where, params } = feedWhere(feed, opts, 2);
    params.push(opts.limit);
    return readPageWithKeyStanding(this.db, caller, {
      columns: PAGE,
      join: `LATERAL (SELECT ${EVENT} FROM events e
        WHERE ${where} AND e.txid < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY e.txid, e.seq LIMIT $${params.length + 2}) page ON true`,
      params,
      present: 'id',
      order: 'page.txid::xid8, page.seq',
    });
  }

  /**
   * Whether any committed event after this position exists, listable or not. Asked when a page came back empty: a
   * true answer then means the log held it back (its transaction not yet below the snapshot's xmin) or it committed
   * since, and a waiting request re-checks on a short tick. No xmin test here, so a hold-back ending between the page
   * query and this one is still seen.
   */
  @GenerateSql({ params: [FEED, { after: POSITIONED, since: DummyValue.DATE }], rows: 'one' })
  async hasAnyAfter(feed: EventFeed, opts: { after: EventPosition | null; type?: string; since: Date }): Promise<boolean> {
    const { where, params } = feedWhere(feed, opts);
    const [row] = await this.db.query<{ held: boolean }>(`SELECT EXISTS (SELECT 1 FROM events e WHERE ${where}) AS held`, params);
    return row.held;
  }

  @GenerateSql({ params: [FEED, DummyValue.TEXT, DummyValue.DATE] })
  async findOne(feed: EventFeed, eventId: string, since: Date): Promise<EventRow | null> {
    const [row] = await this.db.query(
      EVENT,
      `SELECT ${EVENT} FROM events e WHERE e.org_id = $1 AND e.id = $2 AND e.occurred_at >= $3 AND e.livemode = $4`,
      [feed.orgId, eventId, since, feed.livemode],
    );
    return row ?? null;
  }
}

/**
 * The firm's feed of one mode, kept events only, of one type when asked, after a position when given; its values are
 * numbered after the statement's first `before`.
 */
function feedWhere(
  feed: EventFeed,
  opts: { after: EventPosition | null; type?: string; since: Date },
  before = 0,
): { where: string; params: unknown[] } {
  const params: unknown[] = [feed.orgId, feed.livemode, opts.since];
  const $ = (n: number) => `$${before + n}`;
  const where = [`e.org_id = ${$(1)}`, `e.livemode = ${$(2)}`, `e.occurred_at >= ${$(3)}`];
  if (opts.type !== undefined) {
    params.push(opts.type);
    where.push(`e.type = ${$(params.length)}`);
  }
  if (opts.after) {
    params.push(opts.after.txid, opts.after.seq);
    where.push(`(e.txid, e.seq) > (${$(params.length - 1)}::xid8, ${$(params.length)}::bigint)`);
  }
  return { where: where.join(' AND '), params };
}
