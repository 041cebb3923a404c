import { Injectable } from '@nestjs/common';
import { readPageWithKeyStanding, type KeyCaller } from '../auth/index.js';
import type { CarriedPosition } from '../common/ids.js';
import { DummyValue, GenerateSql } from '../database/generate-sql.js';
import { computed, selectList, subqueryColumns, type RowOf } from '../database/select-list.js';
import { SqlParams } from '../database/sql-params.js';
import { Database } from '../database/sql.js';
import { EventEntity } from './entities/event.entity.js';
import type { EventFeed } from './events-listener.js';
import { EVENT, type EventRow } from './events.repository.js';

/** The `after` event as the page's statement found it: its `seq` when the log still holds it, null when not. */
const ANCHOR = computed<{ afterSeq: string | null }>('anchor.seq AS "afterSeq"');
/** The page's rows, read by the statement around it. */
const PAGE = subqueryColumns(EVENT, 'page');
const PAGE_READ = ANCHOR.and(PAGE);
const ID = selectList(EventEntity, 'e', ['id']);

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

const FEED: EventFeed = { orgId: DummyValue.UUID, livemode: true };
const CALLER: KeyCaller = { keyId: DummyValue.UUID, orgId: DummyValue.UUID };
const AT: CarriedPosition = { history: 1, txid: '1' };

/**
 * The events log's pages, written out. The order is the position `(history, txid, seq)`; a row is listed only when
 * its writing transaction can no longer commit behind it: written in an earlier history of the database, or below
 * the reading snapshot's xmin in the current one (every smaller transaction id has then committed or aborted). So no
 * row can later appear before a position a reader has passed, and nothing a promoted standby writes sorts before
 * what it kept. `after` is resolved to its position inside the statement that reads the page, in the same snapshot:
 * a reader whose `after` a promotion lost is told (`afterKept` false), never given a page of another history.
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
    const text = `SELECT ${PAGE_READ} FROM (VALUES (1)) AS one LEFT JOIN ${pageJoins(params, feed, read)}
       ORDER BY page.history, page.txid::xid8, page.seq`;
    return pageRows(await this.db.query(PAGE_READ, text, params.values), read);
  }

  /**
   * `page` in one statement with the calling key's standing (auth's readPageWithKeyStanding): what a waiting request
   * runs when it wakes, so the key is judged in the snapshot that reads the events (and resolves `after`).
   */
  @GenerateSql({ params: [CALLER, FEED, { after: DummyValue.TEXT, since: DummyValue.DATE, limit: 101, before: null }] })
  async pageWithStanding(caller: KeyCaller, feed: EventFeed, read: PageRead) {
    // $1 and $2 are the standing's (the key, the firm).
    const params = new SqlParams(caller.keyId, caller.orgId);
    const join = pageJoins(params, feed, read);
    const { standing, rows } = await readPageWithKeyStanding(this.db, caller, {
      columns: PAGE_READ,
      join,
      params: params.values.slice(2),
      // With `after`, a row of the statement (the page's, or the one row of an empty page) says the anchor was found.
      present: read.after === null ? 'id' : 'afterSeq',
      order: 'page.history, page.txid::xid8, page.seq',
    });
    return { standing, ...pageRows(rows, read) };
  }

  /**
   * Whether any committed event after `after` exists, listable or not (no xmin or standby bound). Asked when a page
   * came back empty: true then means the log held it back, or it committed since, and a waiting request re-checks on
   * a short tick. False when `after` is no longer kept (the next page says so).
   */
  @GenerateSql({ params: [FEED, { after: DummyValue.TEXT, since: DummyValue.DATE }], rows: 'one' })
  async hasAnyAfter(feed: EventFeed, read: Pick<PageRead, 'after' | 'type' | 'since'>): Promise<boolean> {
    const params = new SqlParams();
    const anchor = read.after === null ? '' : `, ${anchorSubquery(params, feed, read)} anchor`;
    const where = feedWhere(params, feed, read);
    const after = read.after === null ? '' : ' AND (e.history, e.txid, e.seq) > (anchor.history, anchor.txid, anchor.seq)';
    const [row] = await this.db.query<{ held: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM events e${anchor} WHERE ${where}${after}) AS held`,
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
        WHERE e.org_id = $1 AND e.livemode = $2 AND e.occurred_at >= $3 AND (e.history, e.txid) < ($4::integer, $5::xid8)
        ORDER BY e.history DESC, e.txid DESC, e.seq DESC LIMIT 1`,
      [feed.orgId, feed.livemode, since, position.history, position.txid],
    );
    return row?.id ?? null;
  }
}

/** The `after` event's position, looked up by id in the feed (kept events only). */
function anchorSubquery(params: SqlParams, feed: EventFeed, read: Pick<PageRead, 'after' | 'since'>): string {
  return `(SELECT a.history, a.txid, a.seq FROM events a
      WHERE a.org_id = ${params.add(feed.orgId)} AND a.livemode = ${params.add(feed.livemode)}
        AND a.occurred_at >= ${params.add(read.since)} AND a.id = ${params.add(read.after)})`;
}

/** The anchor and the page, each a LATERAL join (the page keeps its own order and limit). */
function pageJoins(params: SqlParams, feed: EventFeed, read: PageRead): string {
  const anchor = read.after === null ? '(SELECT NULL::bigint AS seq)' : anchorSubquery(params, feed, read);
  const conditions = [feedWhere(params, feed, read), LISTABLE];
  if (read.after !== null) conditions.push('(e.history, e.txid, e.seq) > (anchor.history, anchor.txid, anchor.seq)');
  if (read.before)
    conditions.push(`(e.history, e.txid) < (${params.add(read.before.history)}::integer, ${params.add(read.before.txid)}::xid8)`);
  return `LATERAL ${anchor} AS anchor ON true
    LEFT JOIN LATERAL (SELECT ${EVENT} FROM events e WHERE ${conditions.join(' AND ')}
      ORDER BY e.history, e.txid, e.seq LIMIT ${params.add(read.limit)}) AS page ON true`;
}

/** Written in an earlier history, or by a transaction below the snapshot's xmin in this one. */
const LISTABLE = `(e.history, e.txid) < ((SELECT log_history()), pg_snapshot_xmin(pg_current_snapshot()))`;

function feedWhere(params: SqlParams, feed: EventFeed, read: Pick<PageRead, 'type' | 'since'>): string {
  const where = [
    `e.org_id = ${params.add(feed.orgId)}`,
    `e.livemode = ${params.add(feed.livemode)}`,
    `e.occurred_at >= ${params.add(read.since)}`,
  ];
  if (read.type !== undefined) where.push(`e.type = ${params.add(read.type)}`);
  return where.join(' AND ');
}

function pageRows(rows: RowOf<typeof PAGE_READ>[], read: PageRead): PageRows {
  const afterKept = read.after === null || rows.some((row) => row.afterSeq !== null);
  return { afterKept, rows: rows.filter((row) => row.id !== null) };
}
