import { Injectable } from '@nestjs/common';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { computed, selectList, type RowOf } from '../database/select-list.js';
import { Database, type Queryable, type Tx } from '../database/sql.js';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity.js';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
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

/** A delivery leased to this worker, with what sending it needs: the claim's join of the delivery, its endpoint and event. */
const CLAIMED = selectList(WebhookDeliveryEntity, 'c', [
  'id',
  'orgId',
  'endpointId',
  'eventId',
  'eventType',
  'attemptCount',
  'trigger',
  'createdAt',
])
  // The token the claim's own UPDATE set (so never null here); `created_at` exactly, as PostgreSQL's text (a Date
  // keeps milliseconds; the column may hold microseconds).
  .and(computed<{ claimToken: string; createdKey: string }>('c.claim_token AS "claimToken", c.created_at::text AS "createdKey"'))
  .and(selectList(WebhookEndpointEntity, 'e', ['url', 'secretEnc', 'previousSecretEnc', 'previousSecretExpiresAt']))
  .and(selectList(WebhookEndpointEntity, 'e', ['status'], 'endpoint'))
  .and(EVENT);

export type ClaimedDelivery = RowOf<typeof CLAIMED>;

/** The recorded result of one claimed delivery. */
export interface DeliveryTransition {
  id: string;
  /** The delivery's partition key exactly (ClaimedDelivery.createdKey), so the write goes to its day's partition alone. */
  createdKey: string;
  claimToken: string;
  status: DeliveryStatus;
  attempt: DeliveryAttempt | null;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
}

/** A due row, with its partition keys as PostgreSQL's text: exact to the microsecond, unlike a Date. */
const DUE = selectList(WebhookDeliveryEntity, null, ['id', 'eventId']).and(
  computed<{ createdKey: string; eventKey: string | null }>(`created_at::text AS "createdKey", event_occurred_at::text AS "eventKey"`),
);
type Due = RowOf<typeof DUE>;

const ID = selectList(WebhookDeliveryEntity, 'd', ['id']);

const distinct = (keys: string[]): string[] => [...new Set(keys)];

/**
 * The dispatcher's statements on `webhook_deliveries`: claim, record, give back. The table and `events` are
 * partitioned by day, and a month of days is kept; every statement here names the partition key of the rows it
 * touches as bind parameters, so PostgreSQL plans it against those days' partitions alone. A statement that finds
 * rows by id only (or joins on it) is planned over every partition and, as the days fill, scans them
 * (docs/benchmarks.md, "Dispatch").
 */
@Injectable()
export class DeliveryClaimsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Claims due deliveries for one worker, in one short transaction: the due rows locked with SKIP LOCKED (so
   * concurrent workers never wait on or share a row), then a lease in database time set on exactly those rows
   * (a worker that dies loses nothing: the row is due again when the lease runs out), returning what sending
   * needs: the endpoint, and the event (its envelope's columns and stored trace context; none when it is no
   * longer kept).
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
   * The due rows, oldest first, locked. Prepared: its plan does not depend on the values, and planning it
   * over a month of partitions costs more than running it.
   */
  private lockDue(tx: Tx, now: Date, limit: number): Promise<Due[]> {
    return tx.prepared(
      'delivery_claim_due',
      DUE,
      `SELECT ${DUE} FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until < now())
        ORDER BY next_attempt_at
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
      `SELECT ${DUE} FROM webhook_deliveries d
        WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until < now())
          AND (attempt_count > 0 OR EXISTS (SELECT 1 FROM events ev WHERE ev.id = d.event_id AND ev.occurred_at = d.event_occurred_at
                                               AND (ev.history, ev.txid) < ($3::integer, $4::xid8)))
        ORDER BY next_attempt_at
        LIMIT $2
          FOR UPDATE OF d SKIP LOCKED`,
      [now, limit, before.history, before.txid],
    );
  }

  private lease(tx: Tx, due: Due[], leaseSeconds: number): Promise<ClaimedDelivery[]> {
    const withEvent = due.filter((d) => d.eventKey !== null);
    return tx.query(
      CLAIMED,
      `WITH claimed AS (
         UPDATE webhook_deliveries d
            SET locked_until = now() + make_interval(secs => $3), claim_token = gen_random_uuid()
          WHERE d.id = ANY($1::uuid[]) AND d.created_at = ANY($2::timestamptz[])
         RETURNING d.id, d.org_id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, d.claim_token, d.trigger, d.created_at,
                   d.event_occurred_at)
       SELECT ${CLAIMED}
         FROM claimed c
         JOIN webhook_endpoints e ON e.id = c.endpoint_id
         LEFT JOIN events ev ON ev.id = c.event_id AND ev.occurred_at = c.event_occurred_at
                            AND ev.id = ANY($4::text[]) AND ev.occurred_at = ANY($5::timestamptz[])`,
      [
        due.map((d) => d.id),
        distinct(due.map((d) => d.createdKey)),
        leaseSeconds,
        withEvent.map((d) => d.eventId),
        distinct(withEvent.map((d) => d.eventKey!)),
      ],
    );
  }

  /**
   * Deliveries whose event the partition-keyed join did not find: made before deliveries kept their event's
   * partition key, or whose event is no longer kept. Looked up by id alone (every partition); rare.
   */
  private async withEventsById(tx: Queryable, claimed: ClaimedDelivery[]): Promise<ClaimedDelivery[]> {
    const ids = [...new Set(claimed.filter((c) => c.eventOccurredAt === null).map((c) => c.eventId))];
    if (ids.length === 0) return claimed;
    const columns = computed<{ eventId: string }>('ev.id AS "eventId"').and(EVENT);
    const events = await tx.query(columns, `SELECT ${columns} FROM events ev WHERE ev.id = ANY($1::text[])`, [ids]);
    const byId = new Map(events.map((e) => [e.eventId, e]));
    return claimed.map((c) => (c.eventOccurredAt === null && byId.has(c.eventId) ? { ...c, ...byId.get(c.eventId)! } : c));
  }

  /**
   * Records many results in one statement. Only rows still held by the same
   * claim are written (a lease that ran out belongs to another worker now);
   * returns the ids written.
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
      `UPDATE webhook_deliveries d
          SET status = x.status,
              attempt_count = d.attempt_count + CASE WHEN x.attempt IS NULL THEN 0 ELSE 1 END,
              attempts = CASE WHEN x.attempt IS NULL THEN d.attempts ELSE d.attempts || jsonb_build_array(x.attempt) END,
              next_attempt_at = x.next_attempt_at,
              completed_at = x.completed_at,
              locked_until = NULL,
              claim_token = NULL
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, claim_token uuid, status text, attempt jsonb, next_attempt_at timestamptz, completed_at timestamptz)
        WHERE d.id = x.id AND d.claim_token = x.claim_token AND d.status = 'pending'
          AND d.id = ANY($2::uuid[]) AND d.created_at = ANY($3::timestamptz[])
        RETURNING ${ID}`,
      [JSON.stringify(payload), items.map((i) => i.id), distinct(items.map((i) => i.createdKey))],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Gives leases back (shutdown): the rows are due again at once for any worker. */
  @GenerateSql({ params: [[DummyValue.UUID]] })
  async release(claimTokens: string[]): Promise<number> {
    if (claimTokens.length === 0) return 0;
    return this.db.execute(
      `UPDATE webhook_deliveries SET locked_until = NULL, claim_token = NULL WHERE claim_token = ANY($1::uuid[]) AND status = 'pending'`,
      [claimTokens],
    );
  }
}
