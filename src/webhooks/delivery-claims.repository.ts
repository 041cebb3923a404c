import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import { Database, type Queryable, type Tx } from '../database/sql.js';
import type { DeliveryAttempt, DeliveryStatus, DeliveryTrigger, WebhookDeliveriesRow } from './webhooks.tables.js';

/** A delivery leased to this worker, with what sending it needs (a named result of the claim's join). */
export interface ClaimedDelivery {
  id: string;
  orgId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  attemptCount: number;
  claimToken: string;
  url: string;
  secretEnc: string;
  /** The secret replaced by a rotation, while it still signs alongside the new one. */
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
  endpointStatus: string;
  trigger: DeliveryTrigger;
  /** When the delivery was made: with its event, for the event and test triggers. */
  createdAt: Date;
  /** `created_at` exactly, as PostgreSQL's text (a Date keeps milliseconds; the column may hold microseconds). */
  createdKey: string;
  /** The event's own columns (its id, firm and type are the delivery's), all null when it is no longer kept. */
  eventOccurredAt: Date | null;
  eventTest: boolean | null;
  eventLivemode: boolean | null;
  eventData: Record<string, unknown> | null;
  /** The traceparent stored with the event (recorded while tracing was on). */
  traceContext: string | null;
}

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
type Due = Pick<WebhookDeliveriesRow, 'id' | 'event_id'> & { created_key: string; event_key: string | null };

/** The event's columns a claim reads, aliased as ClaimedDelivery names them. */
const EVENT_COLUMNS = `ev.occurred_at AS "eventOccurredAt", ev.test AS "eventTest", ev.livemode AS "eventLivemode", ev.data AS "eventData",
  ev.trace_context AS "traceContext"`;

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
  constructor(
    private readonly db: Database,
    private readonly sql: PoolSql,
  ) {}

  /**
   * Claims due deliveries for one worker, in one short transaction: the due rows locked with SKIP LOCKED (so
   * concurrent workers never wait on or share a row), then a lease in database time set on exactly those rows
   * (a worker that dies loses nothing: the row is due again when the lease runs out), returning what sending
   * needs: the endpoint, and the event (its envelope's columns and stored trace context; none when it is no
   * longer kept).
   */
  async claim(now: Date, limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
    return this.db.transaction(async (tx) => {
      const due = await this.lockDue(tx, now, limit);
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
    return tx.prepared<Due>(
      'delivery_claim_due',
      `SELECT id, created_at::text AS created_key, event_id, event_occurred_at::text AS event_key FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until < now())
        ORDER BY next_attempt_at
        LIMIT $2
          FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
  }

  private lease(tx: Tx, due: Due[], leaseSeconds: number): Promise<ClaimedDelivery[]> {
    const withEvent = due.filter((d) => d.event_key !== null);
    return tx.query<ClaimedDelivery>(
      `WITH claimed AS (
         UPDATE webhook_deliveries d
            SET locked_until = now() + make_interval(secs => $3), claim_token = gen_random_uuid()
          WHERE d.id = ANY($1::uuid[]) AND d.created_at = ANY($2::timestamptz[])
         RETURNING d.id, d.org_id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, d.claim_token, d.trigger, d.created_at,
                   d.event_occurred_at)
       SELECT c.id, c.org_id AS "orgId", c.endpoint_id AS "endpointId", c.event_id AS "eventId", c.event_type AS "eventType",
              c.attempt_count AS "attemptCount", c.claim_token AS "claimToken", e.url, e.secret_enc AS "secretEnc",
              e.previous_secret_enc AS "previousSecretEnc", e.previous_secret_expires_at AS "previousSecretExpiresAt", e.status AS "endpointStatus",
              c.trigger, c.created_at AS "createdAt", c.created_at::text AS "createdKey", ${EVENT_COLUMNS}
         FROM claimed c
         JOIN webhook_endpoints e ON e.id = c.endpoint_id
         LEFT JOIN events ev ON ev.id = c.event_id AND ev.occurred_at = c.event_occurred_at
                            AND ev.id = ANY($4::text[]) AND ev.occurred_at = ANY($5::timestamptz[])`,
      [
        due.map((d) => d.id),
        distinct(due.map((d) => d.created_key)),
        leaseSeconds,
        withEvent.map((d) => d.event_id),
        distinct(withEvent.map((d) => d.event_key!)),
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
    const events = await tx.query<
      Pick<ClaimedDelivery, 'eventId' | 'eventOccurredAt' | 'eventTest' | 'eventLivemode' | 'eventData' | 'traceContext'>
    >(`SELECT ev.id AS "eventId", ${EVENT_COLUMNS} FROM events ev WHERE ev.id = ANY($1::text[])`, [ids]);
    const byId = new Map(events.map((e) => [e.eventId, e]));
    return claimed.map((c) => (c.eventOccurredAt === null && byId.has(c.eventId) ? { ...c, ...byId.get(c.eventId)! } : c));
  }

  /**
   * Records many results in one statement. Only rows still held by the same
   * claim are written (a lease that ran out belongs to another worker now);
   * returns the ids written.
   */
  async applyTransitions(manager: Tx, items: DeliveryTransition[]): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const payload = items.map((i) => ({
      id: i.id,
      claim_token: i.claimToken,
      status: i.status,
      attempt: i.attempt,
      next_attempt_at: i.nextAttemptAt?.toISOString() ?? null,
      completed_at: i.completedAt?.toISOString() ?? null,
    }));
    const rows = await manager.query<Pick<WebhookDeliveriesRow, 'id'>>(
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
        RETURNING d.id`,
      [JSON.stringify(payload), items.map((i) => i.id), distinct(items.map((i) => i.createdKey))],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Gives leases back (shutdown): the rows are due again at once for any worker. */
  async release(claimTokens: string[]): Promise<number> {
    if (claimTokens.length === 0) return 0;
    return this.sql.execute(
      `UPDATE webhook_deliveries SET locked_until = NULL, claim_token = NULL WHERE claim_token = ANY($1::uuid[]) AND status = 'pending'`,
      [claimTokens],
    );
  }
}
