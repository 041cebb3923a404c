import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { Tx } from '../database/sql.js';
import type { Camelized } from '../database/tables.js';
import type { DeliveryStatus, DeliveryTrigger, WebhookDeliveriesRow } from './webhooks.tables.js';

export const DELIVERY_CHANNEL = 'webhook_deliveries';

const COLUMNS = `id, org_id AS "orgId", endpoint_id AS "endpointId", event_id AS "eventId", event_type AS "eventType", trigger, status,
  attempt_count AS "attemptCount", attempts, next_attempt_at AS "nextAttemptAt", completed_at AS "completedAt", created_at AS "createdAt"`;

/** A delivery as listed and shown: every column but the lease, aliased to camelCase. */
export type DeliveryRow = Camelized<Omit<WebhookDeliveriesRow, 'locked_until' | 'claim_token'>>;

export type { ClaimedDelivery, DeliveryTransition } from './delivery-claims.repository.js';

export interface DeliveryFilters {
  endpointId?: string;
  eventId?: string;
  status?: DeliveryStatus;
}

@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly sql: PoolSql) {}

  /**
   * One delivery per endpoint of the firm subscribed to the type, in the
   * caller's transaction: pending for an enabled endpoint; for one that is off,
   * already failed with no attempt (a disabled endpoint sends nothing), so the
   * log shows what it missed and it can be redelivered once it is back on.
   * Returns how many are pending (to be sent).
   */
  /** `at` is the event's `occurred_at` (its partition key): the delivery is made at that moment and keeps it. */
  async fanOut(manager: Tx, e: { orgId: string; eventId: string; eventType: string; livemode: boolean; at: Date }): Promise<number> {
    const rows = await manager.query<Pick<WebhookDeliveriesRow, 'status'>>(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, completed_at, created_at,
                                       event_occurred_at)
       SELECT gen_random_uuid(), org_id, id, $2, $3, 'event',
              CASE WHEN status = 'enabled' THEN 'pending' ELSE 'failed' END,
              CASE WHEN status = 'enabled' THEN $4::timestamptz END,
              CASE WHEN status = 'enabled' THEN NULL ELSE $4::timestamptz END,
              $4, $4
         FROM webhook_endpoints
        WHERE org_id = $1 AND $3 = ANY(event_types) AND livemode = $5
       RETURNING status`,
      [e.orgId, e.eventId, e.eventType, e.at, e.livemode],
    );
    return rows.filter((r) => r.status === 'pending').length;
  }

  async insertOne(
    manager: Tx,
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
    const rows = await manager.query<DeliveryRow>(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, created_at, event_occurred_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, 'pending', $6, $6, $7) RETURNING ${COLUMNS}`,
      [d.orgId, d.endpointId, d.eventId, d.eventType, d.trigger, d.now, d.eventOccurredAt],
    );
    return rows[0];
  }

  /** Wakes every dispatcher when the transaction commits (collapsed to one per transaction). */
  async notify(manager: Tx): Promise<void> {
    await manager.execute(`SELECT pg_notify($1, '')`, [DELIVERY_CHANNEL]);
  }

  /** Newest first, keyset on (created_at, id); only deliveries to the firm's endpoints of this mode. */
  async list(
    orgId: string,
    livemode: boolean,
    f: DeliveryFilters & { since: Date; before?: { createdAt: Date; id: string }; limit: number },
  ): Promise<DeliveryRow[]> {
    const params: unknown[] = [orgId, f.since, f.limit, livemode];
    const where = [
      'org_id = $1',
      'created_at >= $2',
      'endpoint_id IN (SELECT e.id FROM webhook_endpoints e WHERE e.org_id = $1 AND e.livemode = $4)',
    ];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (f.endpointId !== undefined) add('endpoint_id = ?', f.endpointId);
    if (f.eventId !== undefined) add('event_id = ?', f.eventId);
    if (f.status !== undefined) add('status = ?', f.status);
    if (f.before) {
      params.push(f.before.createdAt, f.before.id);
      where.push(`(created_at, id) < ($${params.length - 1}, $${params.length}::uuid)`);
    }
    return this.sql.query<DeliveryRow>(
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $3`,
      params,
    );
  }

  async findForOrg(manager: Tx, orgId: string, id: string, since: Date): Promise<DeliveryRow | null> {
    const rows = await manager.query<DeliveryRow>(
      `SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = $1 AND org_id = $2 AND created_at >= $3`,
      [id, orgId, since],
    );
    return rows[0] ?? null;
  }

  /** Creation times of the endpoint's most recent test/redeliver requests inside the window, newest first. */
  async recentManual(manager: Tx, endpointId: string, since: Date, limit: number): Promise<Date[]> {
    const rows = await manager.query<Pick<WebhookDeliveriesRow, 'created_at'>>(
      `SELECT created_at FROM webhook_deliveries WHERE endpoint_id = $1 AND trigger <> 'event' AND created_at > $2 ORDER BY created_at DESC LIMIT $3`,
      [endpointId, since, limit],
    );
    return rows.map((r) => r.created_at);
  }

  /**
   * An endpoint turned off: its pending deliveries that no worker holds are
   * closed as failed and will not be sent later. Held ones are closed by
   * their worker (see the dispatcher).
   */
  async closePending(manager: Tx, endpointId: string, now: Date): Promise<number> {
    return manager.execute(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, completed_at = $2
        WHERE endpoint_id = $1 AND status = 'pending' AND (locked_until IS NULL OR locked_until < now())`,
      [endpointId, now],
    );
  }

  /** How many deliveries of the endpoint (of this firm and mode) were made each hour since `since`, by status. */
  countByHour(
    orgId: string,
    livemode: boolean,
    endpointId: string,
    since: Date,
  ): Promise<{ hour: Date; status: DeliveryStatus; deliveries: number }[]> {
    return this.sql.query<{ hour: Date; status: DeliveryStatus; deliveries: number }>(
      `SELECT date_trunc('hour', d.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, d.status, count(*)::int AS deliveries
         FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.endpoint_id = $1 AND d.created_at >= $2 AND e.org_id = $3 AND e.livemode = $4
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [endpointId, since, orgId, livemode],
    );
  }

  /** Pending deliveries whose time has come (in flight or not), and how long the oldest of them has waited. */
  async dueStats(now: Date): Promise<{ due: number; oldestDueSeconds: number }> {
    const [row] = await this.sql.query<{ due: number; oldest: number }>(
      `SELECT count(*)::int AS due, COALESCE(EXTRACT(EPOCH FROM ($1::timestamptz - min(next_attempt_at))), 0)::float8 AS oldest
         FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1`,
      [now],
    );
    return { due: row.due, oldestDueSeconds: row.oldest };
  }
}
