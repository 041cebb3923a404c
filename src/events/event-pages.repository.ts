import { Injectable } from '@nestjs/common';
import { readPageWithKeyStanding, type KeyCaller } from '../auth/index.js';
import type { CarriedPosition } from '../common/ids.js';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql } from '../database/generate-sql.js';
import { selectList, subqueryColumns } from '../database/select-list.js';
import { SqlParams } from '../database/sql-params.js';
import { Database } from '../database/sql.js';
import { EventEntity } from './entities/event.entity.js';
import type { EventFeed } from './events-listener.js';
import { EVENT, type EventRow } from './events.repository.js';

/** The page's rows, read by the statement around it (the waiting request's, joined to the key's standing). */
const PAGE = subqueryColumns(EVENT, 'page');
const ID = selectList(EventEntity, 'e', ['id']);

/** Column names: the page's events, and the `after` event's. */
const [e, a] = [columns(EventEntity, 'e'), columns(EventEntity, 'a')];

/** One page read: the firm's feed of one mode, kept events only, of one type when asked, after an event when given. */
export interface PageRead {
  /** The evt_ id the page starts after, resolved in the page's own statement; null: from the oldest kept. */
  after: string | null;
  type?: string;
  /** Kept since (retention). */
  since: Date;
  limit: number;
  /** Only events before this position (EVENTS_WAIT_FOR_STANDBY: what a standby holds); null: no such bound. */
  before: CarriedPosition | null;
}

/** A page, and whether its `after` is still in the log (always true without one). */
export interface PageRows {
  afterKept: boolean;
  rows: EventRow[];
}

/** Rows of the page statement; `afterKept` is asked only of an empty page (rows after `after` prove it was there). */
const kept = async (rows: EventRow[], read: PageRead, anchorKept: () => Promise<boolean>): Promise<PageRows> => ({
  rows,
  afterKept: read.after === null || rows.length > 0 || (await anchorKept()),
});

const FEED: EventFeed = { orgId: DummyValue.UUID, livemode: true };
const CALLER: KeyCaller = { keyId: DummyValue.UUID, orgId: DummyValue.UUID };
const AT: CarriedPosition = { history: 1, txid: '1' };

/**
 * The events log's pages, written out. The order is the position `(history, txid, seq)`; a row is listed only when
 * its writing transaction can no longer commit behind it: written in an earlier history of the database, or below
 * the reading snapshot's xmin in the current one (every smaller transaction id has then committed or aborted). So no
 * row can later appear before a position a reader has passed, and nothing a promoted standby writes sorts before
 * what it kept. `after` is resolved to its position inside the statement that reads the page (a row subquery by
 * id): an `after` the log no longer has matches nothing, so a page never follows a position of another history; an
 * empty page asks whether `after` is still there, so a reader whose `after` a promotion lost is told (`afterKept`).
 */
@Injectable()
export class EventPagesRepository {
  constructor(private readonly db: Database) {}

  @GenerateSql(
    { name: 'first page', params: [FEED, { after: null, since: DummyValue.DATE, limit: 101, before: null }] },
    {
      name: 'of one type, after an event, before a standby-held position',
      params: [FEED, { after: DummyValue.TEXT, type: 'call.completed', since: DummyValue.DATE, limit: 101, before: AT }],
    },
  )
  async page(feed: EventFeed, read: PageRead): Promise<PageRows> {
    const params = new SqlParams();
    const rows = await this.db.query(EVENT, pageStatement(params, feed, read), params.values);
    return kept(rows, read, () => this.anchorKept(feed, read));
  }

  /**
   * `page` in one statement with the calling key's standing (auth's readPageWithKeyStanding): what a waiting request
   * runs when it wakes, so the key is judged in the snapshot that reads the events (and resolves `after`).
   */
  @GenerateSql({ params: [CALLER, FEED, { after: DummyValue.TEXT, since: DummyValue.DATE, limit: 101, before: null }] })
  async pageWithStanding(caller: KeyCaller, feed: EventFeed, read: PageRead) {
    const { standing, rows } = await readPageWithKeyStanding(this.db, caller, {
      columns: PAGE,
      join: (params) => `LATERAL (${pageStatement(params, feed, read)}) page ON true`,
      present: 'id',
      order: 'page.history, page.txid::xid8, page.seq',
    });
    return { standing, ...(await kept(rows, read, () => this.anchorKept(feed, read))) };
  }

  /** Whether the feed still holds the event `after` names (kept events only): asked when a page after it is empty. */
  @GenerateSql({ params: [FEED, { after: DummyValue.TEXT, since: DummyValue.DATE }], rows: 'one' })
  async anchorKept(feed: EventFeed, read: Pick<PageRead, 'after' | 'since'>): Promise<boolean> {
    const params = new SqlParams();
    const [row] = await this.db.query<{ kept: boolean }>(`SELECT EXISTS ${anchorSubquery(params, feed, read)} AS kept`, params.values);
    return row.kept;
  }

  /**
   * Whether any committed event after `after` exists, listable or not (no xmin or standby bound). Asked when a page
   * came back empty: true then means the log held it back, or it committed since, and a waiting request re-checks on
   * a short tick. False when `after` is no longer kept (the next page says so).
   */
  @GenerateSql({ params: [FEED, { after: DummyValue.TEXT, since: DummyValue.DATE }], rows: 'one' })
  async hasAnyAfter(feed: EventFeed, read: Pick<PageRead, 'after' | 'type' | 'since'>): Promise<boolean> {
    const params = new SqlParams();
    const conditions = [feedWhere(params, feed, read)];
    if (read.after !== null) conditions.push(`(${e.history}, e.txid, ${e.seq}) > ${anchorSubquery(params, feed, read)}`);
    const [row] = await this.db.query<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM events e WHERE ${conditions.join(' AND ')}) AS held`,
      params.values,
    );
    return row.held;
  }

  /**
   * The newest kept event of the feed before a position (one a promotion lost): where a reader whose `after` is
   * gone resumes. Every kept event after it is one such a reader may not have had.
   */
  @GenerateSql({ params: [FEED, AT, DummyValue.DATE] })
  async newestBefore(feed: EventFeed, position: CarriedPosition, since: Date): Promise<string | null> {
    const [row] = await this.db.query(
      ID,
      `SELECT ${ID} FROM events e
        WHERE ${e.orgId} = $1 AND ${e.livemode} = $2 AND ${e.occurredAt} >= $3 AND (${e.history}, e.txid) < ($4::integer, $5::xid8)
        ORDER BY ${e.history} DESC, e.txid DESC, ${e.seq} DESC LIMIT 1`,
      [feed.orgId, feed.livemode, since, position.history, position.txid],
    );
    return row?.id ?? null;
  }
}

/** The `after` event's position, looked up by id in the feed (kept events only): a row, or none. */
function anchorSubquery(params: SqlParams, feed: EventFeed, read: Pick<PageRead, 'after' | 'since'>): string {
  return `(SELECT ${a.history}, a.txid, ${a.seq} FROM events a
      WHERE ${a.orgId} = ${params.add(feed.orgId)} AND ${a.livemode} = ${params.add(feed.livemode)}
        AND ${a.occurredAt} >= ${params.add(read.since)} AND ${a.id} = ${params.add(read.after)})`;
}

/** One page: listable rows of the feed, after the `after` event's position when given, in the log's order. */
function pageStatement(params: SqlParams, feed: EventFeed, read: PageRead): string {
  const conditions = [feedWhere(params, feed, read), LISTABLE];
  // A row subquery: no row (the event is gone) compares as null, and the page is empty.
  if (read.after !== null) conditions.push(`(${e.history}, e.txid, ${e.seq}) > ${anchorSubquery(params, feed, read)}`);
  if (read.before)
    conditions.push(`(${e.history}, e.txid) < (${params.add(read.before.history)}::integer, ${params.add(read.before.txid)}::xid8)`);
  return `SELECT ${EVENT} FROM events e WHERE ${conditions.join(' AND ')}
    ORDER BY ${e.history}, e.txid, ${e.seq} LIMIT ${params.add(read.limit)}`;
}

/** Written in an earlier history, or by a transaction below the snapshot's xmin in this one. */
const LISTABLE = `(${e.history}, e.txid) < ((SELECT log_history()), pg_snapshot_xmin(pg_current_snapshot()))`;

function feedWhere(params: SqlParams, feed: EventFeed, read: Pick<PageRead, 'type' | 'since'>): string {
  const where = [
    `${e.orgId} = ${params.add(feed.orgId)}`,
    `${e.livemode} = ${params.add(feed.livemode)}`,
    `${e.occurredAt} >= ${params.add(read.since)}`,
  ];
  if (read.type !== undefined) where.push(`${e.type} = ${params.add(read.type)}`);
  return where.join(' AND ');
}
