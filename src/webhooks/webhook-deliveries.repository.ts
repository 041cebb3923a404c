import { Injectable } from '@nestjs/common';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { selectList, type RowOf } from '../database/select-list.js';
import { SqlParams } from '../database/sql-params.js';
import { Database, type Tx } from '../database/sql.js';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity.js';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
import { WebhookPendingDeliveryEntity } from './entities/webhook-pending-delivery.entity.js';
import type { DeliveryFilters, DeliveryPosition, DeliveryTrigger } from './webhook-model.js';

export const DELIVERY_CHANNEL = 'webhook_deliveries';

/** A delivery as listed and shown: every column but its event's partition key. */
export const DELIVERY = selectList(WebhookDeliveryEntity, 'd', [
  'id',
  'orgId',
  'endpointId',
  'eventId',
  'eventType',
  'trigger',
  'status',
  'attemptCount',
  'attempts',
  'nextAttemptAt',
  'completedAt',
  'createdAt',
]);
const STATUS = selectList(WebhookDeliveryEntity, null, ['status']);
const CREATED = selectList(WebhookDeliveryEntity, 'd', ['createdAt']);

/** Column names as the statements alias their tables; then bare (INSERT lists, SET targets, the fan-out's endpoints). */
const [d, e, closed] = [
  columns(WebhookDeliveryEntity, 'd'),
  columns(WebhookEndpointEntity, 'e'),
  columns(WebhookPendingDeliveryEntity, 'c'),
];
const [log, queue, endpoint] = [columns(WebhookDeliveryEntity), columns(WebhookPendingDeliveryEntity), columns(WebhookEndpointEntity)];

export type DeliveryRow = RowOf<typeof DELIVERY>;
export type { DeliveryFilters, DeliveryPosition } from './webhook-model.js';

const NEW_DELIVERY = {
  orgId: DummyValue.UUID,
  endpointId: DummyValue.UUID,
  eventId: DummyValue.TEXT,
  eventOccurredAt: DummyValue.DATE,
  eventType: 'webhook.test',
  trigger: 'test' as const,
  now: DummyValue.DATE,
};

/** The console's "Newer" page, filtered by an event type. */
const NEWER_OF_ONE_TYPE = {
  endpointId: DummyValue.UUID,
  eventType: 'call.completed',
  since: DummyValue.DATE,
  after: { createdAt: DummyValue.DATE, id: DummyValue.UUID },
  limit: 21,
};

/** What a pending delivery's queue row copies from its row in the log: one list, so the two sides cannot drift apart. */
const COPIED = ['id', 'createdAt', 'orgId', 'endpointId', 'eventId', 'eventType', 'eventOccurredAt', 'trigger', 'nextAttemptAt'] as const;
const COPIED_FROM_LOG = COPIED.map((k) => log[k]).join(', ');

/** After an INSERT into the log (a CTE `d` returning at least COPIED_FROM_LOG and the status): its pending rows into the queue, in the same statement. */
const QUEUE_PENDING = `INSERT INTO webhook_pending_deliveries (${COPIED.map((k) => queue[k]).join(', ')})
         SELECT ${COPIED_FROM_LOG} FROM d WHERE ${log.status} = 'pending'`;

/**
 * `webhook_deliveries`, written out: the table is partitioned by day on `created_at`, and each statement here is
 * shaped for that (the fan-out's INSERT ... SELECT, keyset pages, reads bounded by the days kept).
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly db: Database) {}

  /**
   * One delivery per endpoint of the firm subscribed to the type, in the
   * caller's transaction: pending for an enabled endpoint; for one that is off,
   * already failed with no attempt (a disabled endpoint sends nothing), so the
   * log shows what it missed and it can be redelivered once it is back on.
   * Returns how many are pending (to be sent). `at` is the event's `occurred_at`
   * (its partition key): the delivery is made at that moment and keeps it.
   */
  @GenerateSql({
    params: [SQL, { orgId: DummyValue.UUID, eventId: DummyValue.TEXT, eventType: 'call.completed', livemode: true, at: DummyValue.DATE }],
  })
  async fanOut(tx: Tx, e: { orgId: string; eventId: string; eventType: string; livemode: boolean; at: Date }): Promise<number> {
    const rows = await tx.query(
      STATUS,
      `WITH d AS (
         INSERT INTO webhook_deliveries (${log.id}, ${log.orgId}, ${log.endpointId}, ${log.eventId}, ${log.eventType}, ${log.trigger}, ${log.status}, ${log.nextAttemptAt}, ${log.completedAt}, ${log.createdAt},
                                         ${log.eventOccurredAt})
         SELECT gen_random_uuid(), ${endpoint.orgId}, ${endpoint.id}, $2, $3, 'event',
                CASE WHEN ${endpoint.status} = 'enabled' THEN 'pending' ELSE 'failed' END,
                CASE WHEN ${endpoint.status} = 'enabled' THEN $4::timestamptz END,
                CASE WHEN ${endpoint.status} = 'enabled' THEN NULL ELSE $4::timestamptz END,
                $4, $4
           FROM webhook_endpoints
          WHERE ${endpoint.orgId} = $1 AND $3 = ANY(${endpoint.eventTypes}) AND ${endpoint.livemode} = $5
         RETURNING ${COPIED_FROM_LOG}, ${log.status}),
       queued AS (${QUEUE_PENDING})
       SELECT ${STATUS} FROM d`,
      [e.orgId, e.eventId, e.eventType, e.at, e.livemode],
    );
    return rows.filter((r) => r.status === 'pending').length;
  }

  @GenerateSql({ params: [SQL, NEW_DELIVERY] })
  async insertOne(
    tx: Tx,
    d: {
      orgId: string;
      endpointId: string;
      eventId: string;
      /** The event's `occurred_at` (its partition key). */
      eventOccurredAt: Date;
      eventType: string;
      trigger: DeliveryTrigger;
      now: Date;
    },
  ): Promise<DeliveryRow> {
    const [row] = await tx.query(
      DELIVERY,
      `WITH d AS (
         INSERT INTO webhook_deliveries (${log.id}, ${log.orgId}, ${log.endpointId}, ${log.eventId}, ${log.eventType}, ${log.trigger}, ${log.status}, ${log.nextAttemptAt}, ${log.createdAt}, ${log.eventOccurredAt})
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, 'pending', $6, $6, $7)
         RETURNING *),
       queued AS (${QUEUE_PENDING})
       SELECT ${DELIVERY} FROM d`,
      [d.orgId, d.endpointId, d.eventId, d.eventType, d.trigger, d.now, d.eventOccurredAt],
    );
    return row;
  }

  /** Wakes every dispatcher when the transaction commits (collapsed to one per transaction). */
  @GenerateSql({ params: [SQL] })
  async notify(tx: Tx): Promise<void> {
    await tx.execute(`SELECT pg_notify($1, '')`, [DELIVERY_CHANNEL]);
  }

  /**
   * Newest first, keyset on (created_at, id); only deliveries to the firm's endpoints of this mode. With `after`
   * (the console's "Newer"): the rows just newer than that position, oldest first, for the caller to turn round.
   */
  @GenerateSql(
    { name: 'first page', params: [DummyValue.UUID, true, { since: DummyValue.DATE, limit: 21 }] },
    {
      name: 'every filter, after a position',
      params: [
        DummyValue.UUID,
        true,
        {
          endpointId: DummyValue.UUID,
          eventId: DummyValue.TEXT,
          status: 'failed',
          since: DummyValue.DATE,
          before: { createdAt: DummyValue.DATE, id: DummyValue.UUID },
          limit: 21,
        },
      ],
    },
    { name: "the console's newer page of one type", params: [DummyValue.UUID, true, NEWER_OF_ONE_TYPE] },
  )
  async list(
    orgId: string,
    livemode: boolean,
    f: DeliveryFilters & { since: Date; before?: DeliveryPosition; after?: DeliveryPosition; limit: number },
  ): Promise<DeliveryRow[]> {
    const q = new SqlParams(orgId);
    const [since, limit, mode] = [q.add(f.since), q.add(f.limit), q.add(livemode)];
    const where = [
      `${d.orgId} = $1`,
      `${d.createdAt} >= ${since}`,
      `${d.endpointId} IN (SELECT ${e.id} FROM webhook_endpoints e WHERE ${e.orgId} = $1 AND ${e.livemode} = ${mode})`,
    ];
    if (f.endpointId !== undefined) where.push(`${d.endpointId} = ${q.add(f.endpointId)}`);
    if (f.eventId !== undefined) where.push(`${d.eventId} = ${q.add(f.eventId)}`);
    if (f.status !== undefined) where.push(`${d.status} = ${q.add(f.status)}`);
    if (f.eventType !== undefined) where.push(`${d.eventType} = ${q.add(f.eventType)}`);
    if (f.before) where.push(`(${d.createdAt}, ${d.id}) < (${q.add(f.before.createdAt)}, ${q.add(f.before.id)}::uuid)`);
    if (f.after) where.push(`(${d.createdAt}, ${d.id}) > (${q.add(f.after.createdAt)}, ${q.add(f.after.id)}::uuid)`);
    const order = f.after ? 'ASC' : 'DESC';
    return this.db.query(
      DELIVERY,
      `SELECT ${DELIVERY} FROM webhook_deliveries d WHERE ${where.join(' AND ')} ORDER BY ${d.createdAt} ${order}, ${d.id} ${order} LIMIT ${limit}`,
      q.values,
    );
  }

  /** The firm's delivery, among the days kept (`created_at >= since` bounds the partitions read). */
  @GenerateSql({ params: [DummyValue.UUID, DummyValue.UUID, DummyValue.DATE] })
  async findForOrg(orgId: string, id: string, since: Date): Promise<DeliveryRow | null> {
    const [row] = await this.db.query(
      DELIVERY,
      `SELECT ${DELIVERY} FROM webhook_deliveries d WHERE ${d.id} = $1 AND ${d.orgId} = $2 AND ${d.createdAt} >= $3`,
      [id, orgId, since],
    );
    return row ?? null;
  }

  /** Creation times of the endpoint's most recent test/redeliver requests inside the window, newest first. */
  @GenerateSql({ params: [SQL, DummyValue.UUID, DummyValue.DATE, 5] })
  async recentManual(tx: Tx, endpointId: string, since: Date, limit: number): Promise<Date[]> {
    const rows = await tx.query(
      CREATED,
      `SELECT ${CREATED} FROM webhook_deliveries d
        WHERE ${d.endpointId} = $1 AND ${d.trigger} <> 'event' AND ${d.createdAt} > $2 ORDER BY ${d.createdAt} DESC LIMIT $3`,
      [endpointId, since, limit],
    );
    return rows.map((r) => r.createdAt);
  }

  /**
   * An endpoint turned off: its pending deliveries that no worker holds leave the queue and are closed as failed in
   * the log; they will not be sent later. Held ones are closed by their worker (see the dispatcher). The queue has
   * no index on the endpoint (it would cost every delivery a write): this reads it whole, once per endpoint turned off.
   */
  @GenerateSql({ params: [SQL, DummyValue.UUID, DummyValue.DATE] })
  closePending(tx: Tx, endpointId: string, now: Date): Promise<number> {
    return tx.execute(
      `WITH closed AS (
         DELETE FROM webhook_pending_deliveries
          WHERE ${queue.endpointId} = $1 AND (${queue.lockedUntil} IS NULL OR ${queue.lockedUntil} < now())
         RETURNING ${queue.id}, ${queue.createdAt})
       UPDATE webhook_deliveries d SET ${log.status} = 'failed', ${log.nextAttemptAt} = NULL, ${log.completedAt} = $2
         FROM closed c
        WHERE ${d.id} = ${closed.id} AND ${d.createdAt} = ${closed.createdAt} AND ${d.endpointId} = $1 AND ${d.status} = 'pending'`,
      [endpointId, now],
    );
  }

  /** Pending deliveries whose time has come (in flight or not, from the queue), and how long the oldest of them has waited. */
  @GenerateSql({ params: [DummyValue.DATE], rows: 'one' })
  async dueStats(now: Date): Promise<{ due: number; oldestDueSeconds: number }> {
    const [row] = await this.db.query<{ due: number; oldest: number }>(
      `SELECT count(*)::int AS due, COALESCE(EXTRACT(EPOCH FROM ($1::timestamptz - min(${queue.nextAttemptAt}))), 0)::float8 AS oldest
         FROM webhook_pending_deliveries WHERE ${queue.nextAttemptAt} <= $1`,
      [now],
    );
    return { due: row.due, oldestDueSeconds: row.oldest };
  }
}
