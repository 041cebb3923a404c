import { Injectable } from '@nestjs/common';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { computed, selectList, type RowOf } from '../database/select-list.js';
import { Database, type Queryable, type Tx } from '../database/sql.js';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity.js';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
import { WebhookPendingDeliveryEntity } from './entities/webhook-pending-delivery.entity.js';
import type { CarriedPosition } from '../common/ids.js';
import type { DeliveryAttempt, DeliveryStatus } from './webhook-model.js';

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
  'ev.occurred_at AS "eventOccurredAt", ev.test AS "eventTest", ev.livemode AS "eventLivemode", ev.data AS "eventData", ev.trace_context AS "traceContext"',
);
type EventColumns = RowOf<typeof EVENT>;
const EVENT_BY_ID = computed<{ eventId: string }>('ev.id AS "eventId"').and(EVENT);

/** A delivery leased to this worker with its endpoint: the claim's join of the pending delivery and its endpoint. */
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
  .and(
    computed<{ claimToken: string; createdKey: string; eventKey: string | null }>(
      'c.claim_token AS "claimToken", c.created_at::text AS "createdKey", c.event_occurred_at::text AS "eventKey"',
    ),
  )
  .and(selectList(WebhookEndpointEntity, 'e', ['url', 'secretEnc', 'previousSecretEnc', 'previousSecretExpiresAt']))
  .and(selectList(WebhookEndpointEntity, 'e', ['status'], 'endpoint'));

/** A delivery leased to this worker, with what sending it needs: its endpoint and its event. */
export type ClaimedDelivery = Omit<RowOf<typeof LEASED>, 'eventKey'> & EventColumns;

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

const NO_EVENT: EventColumns = { eventOccurredAt: null, eventTest: null, eventLivemode: null, eventData: null, traceContext: null };

const distinct = (keys: string[]): string[] => [...new Set(keys)];

/** The claim's statement: due rows locked with SKIP LOCKED (`due` is the condition on them), leased, with their endpoints. */
const claimStatement = (due: string) =>
  `WITH claimed AS (
     UPDATE webhook_pending_deliveries c
        SET locked_until = now() + make_interval(secs => $3), claim_token = gen_random_uuid()
      WHERE c.id IN (SELECT p.id FROM webhook_pending_deliveries p
                      WHERE ${due}
                      ORDER BY p.next_attempt_at
                      LIMIT $2
                        FOR UPDATE OF p SKIP LOCKED)
     RETURNING c.*)
   SELECT ${LEASED}
     FROM claimed c
     JOIN webhook_endpoints e ON e.id = c.endpoint_id
    ORDER BY c.next_attempt_at`;

const DUE = 'p.next_attempt_at <= $1 AND (p.locked_until IS NULL OR p.locked_until < now())';

/**
 * The dispatcher's statements: claim, record, give back. A claim and a release touch only
 * `webhook_pending_deliveries` (the queue: small, unpartitioned, one index); a result also writes the delivery's
 * row in the log (`webhook_deliveries`, partitioned by day like `events`), found by its id and its day as bind
 * parameters, so PostgreSQL plans the write against that day's partition alone; the event is read the same way
 * (docs/benchmarks.md, "Dispatch").
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
      const leased = before
        ? await this.leaseDueHeld(tx, now, limit, leaseSeconds, before)
        : await this.leaseDue(tx, now, limit, leaseSeconds);
      if (leased.length === 0) return [];
      return this.withEvents(tx, leased);
    });
  }

  /** The due rows, oldest first, leased. Prepared: its plan does not depend on the values. */
  private leaseDue(tx: Tx, now: Date, limit: number, leaseSeconds: number): Promise<RowOf<typeof LEASED>[]> {
    return tx.prepared('delivery_claim_due', LEASED, claimStatement(DUE), [now, limit, leaseSeconds]);
  }

  /**
   * leaseDue under EVENTS_WAIT_FOR_STANDBY: a first attempt only once a standby holds its event (its position before
   * `before`, the standby horizon), so a promotion never takes back an event a receiver was sent. A retry's event was
   * published before its first attempt. (The lockDueHeld of the trees before the queue: the same condition.)
   */
  private leaseDueHeld(tx: Tx, now: Date, limit: number, leaseSeconds: number, before: CarriedPosition): Promise<RowOf<typeof LEASED>[]> {
    return tx.prepared(
      'delivery_claim_due_held',
      LEASED,
      claimStatement(`${DUE}
                        AND (p.attempt_count > 0 OR EXISTS (SELECT 1 FROM events ev WHERE ev.id = p.event_id AND ev.occurred_at = p.event_occurred_at
                                                               AND (ev.history, ev.txid) < ($4::integer, $5::xid8)))`),
      [now, limit, leaseSeconds, before.history, before.txid],
    );
  }

  /**
   * The claimed deliveries' events, read by id and day as bind parameters (pruned to those days' partitions); then,
   * by id alone (every partition; rare), those of deliveries made before deliveries kept their event's day or whose
   * event was not found there. An event no longer kept reads as none.
   */
  private async withEvents(tx: Queryable, leased: RowOf<typeof LEASED>[]): Promise<ClaimedDelivery[]> {
    const keyed = leased.filter((d) => d.eventKey !== null);
    const found = new Map<string, EventColumns>();
    if (keyed.length > 0) {
      const rows = await tx.query(
        EVENT_BY_ID,
        `SELECT ${EVENT_BY_ID} FROM events ev WHERE ev.id = ANY($1::text[]) AND ev.occurred_at = ANY($2::timestamptz[])`,
        [distinct(keyed.map((d) => d.eventId)), distinct(keyed.map((d) => d.eventKey!))],
      );
      for (const { eventId, ...event } of rows) found.set(eventId, event);
    }
    const missing = distinct(leased.filter((d) => !found.has(d.eventId)).map((d) => d.eventId));
    if (missing.length > 0) {
      const rows = await tx.query(EVENT_BY_ID, `SELECT ${EVENT_BY_ID} FROM events ev WHERE ev.id = ANY($1::text[])`, [missing]);
      for (const { eventId, ...event } of rows) found.set(eventId, event);
    }
    return leased.map(({ eventKey: _, ...d }) => ({ ...d, ...(found.get(d.eventId) ?? NO_EVENT) }));
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
          WHERE p.id = x.id AND p.claim_token = x.claim_token AND x.status <> 'pending'
         RETURNING p.id),
       retried AS (
         UPDATE webhook_pending_deliveries p
            SET attempt_count = p.attempt_count + CASE WHEN x.attempt IS NULL THEN 0 ELSE 1 END,
                next_attempt_at = x.next_attempt_at, locked_until = NULL, claim_token = NULL
           FROM x
          WHERE p.id = x.id AND p.claim_token = x.claim_token AND x.status = 'pending'
         RETURNING p.id)
       UPDATE webhook_deliveries d
          SET status = x.status,
              attempt_count = d.attempt_count + CASE WHEN x.attempt IS NULL THEN 0 ELSE 1 END,
              attempts = CASE WHEN x.attempt IS NULL THEN d.attempts ELSE d.attempts || jsonb_build_array(x.attempt) END,
              next_attempt_at = x.next_attempt_at,
              completed_at = x.completed_at
         FROM x
        WHERE d.id = x.id AND d.status = 'pending'
          AND d.id IN (SELECT id FROM settled UNION ALL SELECT id FROM retried)
          AND d.id = ANY($2::uuid[]) AND d.created_at = ANY($3::timestamptz[])
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
      `UPDATE webhook_pending_deliveries SET locked_until = NULL, claim_token = NULL WHERE claim_token = ANY($1::uuid[])`,
      [claimTokens],
    );
  }
}
