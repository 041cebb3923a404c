import { Injectable } from '@nestjs/common';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { computed, selectList, type RowOf } from '../database/select-list.js';
import { Database, type Queryable, type Tx } from '../database/sql.js';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity.js';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
import { WebhookPendingDeliveryEntity } from './entities/webhook-pending-delivery.entity.js';
import type { CarriedPosition } from '../common/ids.js';
import { eventColumns } from '../events/index.js';
import type { DeliveryAttempt, DeliveryStatus } from './webhook-model.js';

const ev = eventColumns('ev');
/** The queue's columns: bare (a SET's targets, the unaliased claim), and as the claim's statements alias it. */
const [queue, c, p] = [
  columns(WebhookPendingDeliveryEntity),
  columns(WebhookPendingDeliveryEntity, 'c'),
  columns(WebhookPendingDeliveryEntity, 'p'),
];
const [log, d] = [columns(WebhookDeliveryEntity), columns(WebhookDeliveryEntity, 'd')];
const e = columns(WebhookEndpointEntity, 'e');

/**
 * The event's columns a claim reads (events is the events context's table: named here, typed by the claim), all
 * null when the event is no longer kept.
 */
const EVENT = computed<{
  eventOccurredAt: Date | null;
  eventTest: boolean | null;
  eventLivemode: boolean | null;
  eventData: Record<string, unknown> | null;
  /** The traceparent stored with the event (recorded while tracing was on). */
  traceContext: string | null;
}>(
  `${ev.occurredAt} AS "eventOccurredAt", ${ev.test} AS "eventTest", ${ev.livemode} AS "eventLivemode", ${ev.data} AS "eventData", ${ev.traceContext} AS "traceContext"`,
);
const EVENT_BY_ID = computed<{ eventId: string }>(`${ev.id} AS "eventId"`).and(EVENT);

/** A delivery leased to this worker: the claim's join of the pending delivery, its endpoint and its event. */
const LEASED = selectList(WebhookPendingDeliveryEntity, 'c', [
  'id',
  'orgId',
  'endpointId',
  'eventId',
  'eventType',
  'attemptCount',
  'trigger',
  'createdAt',
])
  // The token the claim's own UPDATE set (so never null here); the partition keys exactly, as PostgreSQL's text (a
  // Date keeps milliseconds; the columns may hold microseconds).
  .and(computed<{ claimToken: string; createdKey: string }>(`${c.claimToken} AS "claimToken", ${c.createdAt}::text AS "createdKey"`))
  .and(selectList(WebhookEndpointEntity, 'e', ['url', 'secretEnc', 'previousSecretEnc', 'previousSecretExpiresAt']))
  .and(selectList(WebhookEndpointEntity, 'e', ['status'], 'endpoint'))
  .and(EVENT);

/** A delivery leased to this worker, with what sending it needs: its endpoint and its event. */
export type ClaimedDelivery = RowOf<typeof LEASED>;

/** A due row of the queue, with its event's partition key as PostgreSQL's text: exact to the microsecond, unlike a Date. */
const DUE = selectList(WebhookPendingDeliveryEntity, null, ['id', 'eventId']).and(
  computed<{ eventKey: string | null }>(`${queue.eventOccurredAt}::text AS "eventKey"`),
);
type Due = RowOf<typeof DUE>;

/** The recorded result of one claimed delivery. */
export interface DeliveryTransition {
  id: string;
  /** The delivery's partition key in the log exactly (ClaimedDelivery.createdKey), so the write goes to its day's partition alone. */
  createdKey: string;
  claimToken: string;
  status: DeliveryStatus;
  attempt: DeliveryAttempt | null;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
}

const ID = selectList(WebhookDeliveryEntity, 'd', ['id']);

const distinct = (keys: string[]): string[] => [...new Set(keys)];

/** Due and not leased (a lease that ran out is due again). */
const DUE_NOW = `${queue.nextAttemptAt} <= $1 AND (${queue.lockedUntil} IS NULL OR ${queue.lockedUntil} < now())`;

/**
 * The dispatcher's statements: claim, record, give back. A claim leases rows of `webhook_pending_deliveries` (the
 * queue: small, unpartitioned, one index) and reads their events by id and day as bind parameters; a result also
 * writes the delivery's row in the log (`webhook_deliveries`, partitioned by day like `events`) by id and day, so
 * PostgreSQL plans each against those days' partitions alone (docs/benchmarks.md, "Dispatch").
 */
@Injectable()
export class DeliveryClaimsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Claims due deliveries for one worker, in one short transaction: the due rows locked with SKIP LOCKED (so
   * concurrent workers never wait on or share a row) and leased in database time in one statement (a worker that
   * dies loses nothing: the row is due again when the lease runs out), returning what sending needs: the endpoint,
   * and the event (its envelope's columns and stored trace context; none when it is no longer kept).
   */
  @GenerateSql(
    { params: [DummyValue.DATE, 64, 60, null], rows: 'one' },
    { name: 'first attempts only of events a standby holds', params: [DummyValue.DATE, 64, 60, { history: 1, txid: '1' }] },
  )
  async claim(now: Date, limit: number, leaseSeconds: number, before: CarriedPosition | null): Promise<ClaimedDelivery[]> {
    return this.db.transaction(async (tx) => {
      const due = before ? await this.lockDueHeld(tx, now, limit, before) : await this.lockDue(tx, now, limit);
      if (due.length === 0) return [];
      const claimed = await this.lease(tx, due, leaseSeconds);
      return this.withEventsById(tx, claimed);
    });
  }

  /**
   * The due rows, oldest first, locked. A plain SELECT, not a subquery of the lease's UPDATE: its index scan then
   * marks the entries of rows the queue no longer holds as dead, and later claims skip them; inside an UPDATE each
   * claim read every such row again until a vacuum (docs/benchmarks.md, issue 45). Prepared: its plan does not
   * depend on the values.
   */
  private lockDue(tx: Tx, now: Date, limit: number): Promise<Due[]> {
    return tx.prepared(
      'delivery_claim_due',
      DUE,
      `SELECT ${DUE} FROM webhook_pending_deliveries
        WHERE ${DUE_NOW}
        ORDER BY ${queue.nextAttemptAt}
        LIMIT $2
          FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
  }

  /**
   * lockDue under EVENTS_WAIT_FOR_STANDBY: a first attempt only once a standby holds its event (its position before
   * `before`, the standby horizon), so a promotion never takes back an event a receiver was sent. A retry's event was
   * published before its first attempt.
   */
  private lockDueHeld(tx: Tx, now: Date, limit: number, before: CarriedPosition): Promise<Due[]> {
    return tx.prepared(
      'delivery_claim_due_held',
      DUE,
      `SELECT ${DUE} FROM webhook_pending_deliveries p
        WHERE ${DUE_NOW}
          AND (${queue.attemptCount} > 0 OR EXISTS (SELECT 1 FROM events ev WHERE ${ev.id} = ${p.eventId} AND ${ev.occurredAt} = ${p.eventOccurredAt}
                                               AND (${ev.history}, ev.txid) < ($3::integer, $4::xid8)))
        ORDER BY ${queue.nextAttemptAt}
        LIMIT $2
          FOR UPDATE OF p SKIP LOCKED`,
      [now, limit, before.history, before.txid],
    );
  }

  /** Leases the locked rows and reads their endpoints and events, the events by id and day as bind parameters. */
  private lease(tx: Tx, due: Due[], leaseSeconds: number): Promise<ClaimedDelivery[]> {
    const withEvent = due.filter((d) => d.eventKey !== null);
    return tx.query(
      LEASED,
      `WITH claimed AS (
         UPDATE webhook_pending_deliveries c
            SET ${queue.lockedUntil} = now() + make_interval(secs => $2), ${queue.claimToken} = gen_random_uuid()
          WHERE ${c.id} = ANY($1::uuid[])
         RETURNING ${c.id}, ${c.orgId}, ${c.endpointId}, ${c.eventId}, ${c.eventType}, ${c.attemptCount}, ${c.claimToken}, ${c.trigger}, ${c.createdAt},
                   ${c.eventOccurredAt}, ${c.nextAttemptAt})
       SELECT ${LEASED}
         FROM claimed c
         JOIN webhook_endpoints e ON ${e.id} = ${c.endpointId}
         LEFT JOIN events ev ON ${ev.id} = ${c.eventId} AND ${ev.occurredAt} = ${c.eventOccurredAt}
                            AND ${ev.id} = ANY($3::text[]) AND ${ev.occurredAt} = ANY($4::timestamptz[])
        ORDER BY ${c.nextAttemptAt}`,
      [due.map((d) => d.id), leaseSeconds, withEvent.map((d) => d.eventId), distinct(withEvent.map((d) => d.eventKey!))],
    );
  }

  /**
   * Deliveries whose event the partition-keyed join did not find: made before deliveries kept their event's
   * partition key, or whose event is no longer kept. Looked up by id alone (every partition); rare.
   */
  private async withEventsById(tx: Queryable, claimed: ClaimedDelivery[]): Promise<ClaimedDelivery[]> {
    const ids = distinct(claimed.filter((c) => c.eventOccurredAt === null).map((c) => c.eventId));
    if (ids.length === 0) return claimed;
    const events = await tx.query(EVENT_BY_ID, `SELECT ${EVENT_BY_ID} FROM events ev WHERE ${ev.id} = ANY($1::text[])`, [ids]);
    const byId = new Map(events.map((e) => [e.eventId, e]));
    return claimed.map((c) => (c.eventOccurredAt === null && byId.has(c.eventId) ? { ...c, ...byId.get(c.eventId)! } : c));
  }

  /**
   * Records many results in one statement. Only deliveries still held by the same claim are written (a lease that
   * ran out belongs to another worker now): a settled one leaves the queue, a retry stays in it with its next time
   * and no lease, and the log's row takes the status and the attempt either way. Returns the ids written.
   */
  @GenerateSql({ params: [SQL, [{ id: DummyValue.UUID, createdKey: '2026-01-01 00:00:00+00', claimToken: DummyValue.UUID }]] })
  async applyTransitions(tx: Tx, items: DeliveryTransition[]): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const payload = items.map((i) => ({
      id: i.id,
      claim_token: i.claimToken,
      status: i.status,
      attempt: i.attempt,
      next_attempt_at: i.nextAttemptAt?.toISOString() ?? null,
      completed_at: i.completedAt?.toISOString() ?? null,
    }));
    const rows = await tx.query(
      ID,
      `WITH x AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb)
                  AS x(id uuid, claim_token uuid, status text, attempt jsonb, next_attempt_at timestamptz, completed_at timestamptz)),
       settled AS (
         DELETE FROM webhook_pending_deliveries p USING x
          WHERE ${p.id} = x.id AND ${p.claimToken} = x.claim_token AND x.status <> 'pending'
         RETURNING ${p.id}),
       retried AS (
         UPDATE webhook_pending_deliveries p
            SET ${queue.attemptCount} = ${p.attemptCount} + CASE WHEN x.attempt IS NULL THEN 0 ELSE 1 END,
                ${queue.nextAttemptAt} = x.next_attempt_at, ${queue.lockedUntil} = NULL, ${queue.claimToken} = NULL
           FROM x
          WHERE ${p.id} = x.id AND ${p.claimToken} = x.claim_token AND x.status = 'pending'
         RETURNING ${p.id})
       UPDATE webhook_deliveries d
          SET ${log.status} = x.status,
              ${log.attemptCount} = ${d.attemptCount} + CASE WHEN x.attempt IS NULL THEN 0 ELSE 1 END,
              ${log.attempts} = CASE WHEN x.attempt IS NULL THEN ${d.attempts} ELSE ${d.attempts} || jsonb_build_array(x.attempt) END,
              ${log.nextAttemptAt} = x.next_attempt_at,
              ${log.completedAt} = x.completed_at
         FROM x
        WHERE ${d.id} = x.id AND ${d.status} = 'pending'
          AND ${d.id} IN (SELECT id FROM settled UNION ALL SELECT id FROM retried)
          AND ${d.id} = ANY($2::uuid[]) AND ${d.createdAt} = ANY($3::timestamptz[])
        RETURNING ${ID}`,
      [JSON.stringify(payload), items.map((i) => i.id), distinct(items.map((i) => i.createdKey))],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Gives leases back (shutdown): the deliveries are due again at once for any worker. */
  @GenerateSql({ params: [[DummyValue.UUID]] })
  async release(claimTokens: string[]): Promise<number> {
    if (claimTokens.length === 0) return 0;
    return this.db.execute(
      `UPDATE webhook_pending_deliveries SET ${queue.lockedUntil} = NULL, ${queue.claimToken} = NULL WHERE ${queue.claimToken} = ANY($1::uuid[])`,
      [claimTokens],
    );
  }
}
