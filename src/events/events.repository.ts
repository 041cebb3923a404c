import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { Tx } from '../database/sql.js';
import type { Camelized } from '../database/tables.js';
import type { EventsRow } from './events.tables.js';
import { EVENTS_CHANNEL, feedKeyOf, type EventFeed } from './events-listener.js';

/** An event as the service holds it: the row but its txid, named in camelCase (`seq` as text: a bigint). */
export type EventRecord = Camelized<Omit<EventsRow, 'txid' | 'trace_context'>>;

/** An event as read: its columns plus the writing transaction's id (set by the database, never mapped for writes). */
export type EventRow = EventRecord & { txid: string };

/** Where an event sits in the log's commit-safe order. */
export interface EventPosition {
  txid: string;
  seq: string;
  occurredAt: Date;
}

const COLUMNS = `seq::text AS seq, id, org_id AS "orgId", type, test, livemode, occurred_at AS "occurredAt", data, txid::text AS txid`;

/**
 * The events log. Rows are listed in (txid, seq) order and only when their
 * writing transaction is below the reading snapshot's xmin: every transaction
 * with a smaller id has then committed or aborted, so no row can later appear
 * before a position a reader has already passed.
 */
@Injectable()
export class EventsRepository {
  constructor(private readonly sql: PoolSql) {}

  /** In the caller's transaction; `seq` and `txid` come from the database. */
  /** `data` is any event's (event-catalogue.ts types it for record()); stored as JSON and read back as a plain map. */
  async insert(
    tx: Tx,
    values: Omit<EventRecord, 'seq' | 'data'> & { data: object; traceContext: EventsRow['trace_context'] },
  ): Promise<EventRecord> {
    // The notification (feed:type) reaches waiting requests (event-waits.ts) only if and when this transaction commits.
    const [row] = await tx.query<Pick<EventsRow, 'seq'>>(
      `INSERT INTO events (id, org_id, type, test, occurred_at, data, trace_context, livemode) VALUES ($1, $2, $3, $4, $5, $6, $7, $9)
       RETURNING seq, pg_notify($8, $10 || ':' || $3) AS notified`,
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

  async position(feed: EventFeed, eventId: string): Promise<EventPosition | null> {
    const rows = await this.sql.query<EventPosition>(
      `SELECT txid::text AS txid, seq::text AS seq, occurred_at AS "occurredAt" FROM events WHERE org_id = $1 AND id = $2 AND livemode = $3`,
      [feed.orgId, eventId, feed.livemode],
    );
    return rows[0] ?? null;
  }

  async page(feed: EventFeed, opts: { after: EventPosition | null; type?: string; since: Date; limit: number }): Promise<EventRow[]> {
    const { where, params } = feedWhere(feed, opts);
    params.push(opts.limit);
    // Qualified: a bare "txid, seq" would sort by the text aliases of the select list.
    return this.sql.query<EventRow>(
      `SELECT ${COLUMNS} FROM events
        WHERE ${where} AND txid < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY events.txid, events.seq LIMIT $${params.length}`,
      params,
    );
  }

  /**
   * Whether any committed event after this position exists, listable or not. Asked when a page came back empty: a
   * true answer then means the log held it back (its transaction not yet below the snapshot's xmin) or it committed
   * since, and a waiting request re-checks on a short tick. No xmin test here, so a hold-back ending between the page
   * query and this one is still seen.
   */
  async hasAnyAfter(feed: EventFeed, opts: { after: EventPosition | null; type?: string; since: Date }): Promise<boolean> {
    const { where, params } = feedWhere(feed, opts);
    const rows = await this.sql.query<{ held: boolean }>(`SELECT EXISTS (SELECT 1 FROM events WHERE ${where}) AS held`, params);
    return rows[0].held;
  }

  async findOne(feed: EventFeed, eventId: string, since: Date): Promise<EventRow | null> {
    const rows = await this.sql.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE org_id = $1 AND id = $2 AND occurred_at >= $3 AND livemode = $4`,
      [feed.orgId, eventId, since, feed.livemode],
    );
    return rows[0] ?? null;
  }
}

/** The firm's feed of one mode, kept events only, of one type when asked, after a position when given. */
function feedWhere(
  feed: EventFeed,
  opts: { after: EventPosition | null; type?: string; since: Date },
): { where: string; params: unknown[] } {
  const params: unknown[] = [feed.orgId, feed.livemode, opts.since];
  const where = [`org_id = $1`, `livemode = $2`, `occurred_at >= $3`];
  if (opts.type !== undefined) {
    params.push(opts.type);
    where.push(`type = $${params.length}`);
  }
  if (opts.after) {
    params.push(opts.after.txid, opts.after.seq);
    where.push(`(txid, seq) > ($${params.length - 1}::xid8, $${params.length}::bigint)`);
  }
  return { where: where.join(' AND '), params };
}
