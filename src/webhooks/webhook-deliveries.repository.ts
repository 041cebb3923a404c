import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { Tx } from '../database/sql.js';
import type { Camelized } from '../database/tables.js';
import type { DeliveryAttempt, DeliveryStatus, DeliveryTrigger, WebhookDeliveriesRow } from './webhooks.tables.js';

export const DELIVERY_CHANNEL = 'webhook_deliveries';

const COLUMNS = `id, org_id AS "orgId", endpoint_id AS "endpointId", event_id AS "eventId", event_type AS "eventType", trigger, status,
  attempt_count AS "attemptCount", attempts, next_attempt_at AS "nextAttemptAt", completed_at AS "completedAt", created_at AS "createdAt"`;

/** A delivery as listed and shown: every column but the lease, aliased to camelCase. */
export type DeliveryRow = Camelized<Omit<WebhookDeliveriesRow, 'locked_until' | 'claim_token'>>;

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
}

/** The recorded result of one claimed delivery. */
export interface DeliveryTransition {
  id: string;
  claimToken: string;
  status: DeliveryStatus;
  attempt: DeliveryAttempt | null;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
}

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
  async fanOut(manager: Tx, e: { orgId: string; eventId: string; eventType: string; livemode: boolean; at: Date }): Promise<number> {
    const rows = await manager.query<Pick<WebhookDeliveriesRow, 'status'>>(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, completed_at, created_at)
       SELECT gen_random_uuid(), org_id, id, $2, $3, 'event',
              CASE WHEN status = 'enabled' THEN 'pending' ELSE 'failed' END,
              CASE WHEN status = 'enabled' THEN $4::timestamptz END,
              CASE WHEN status = 'enabled' THEN NULL ELSE $4::timestamptz END,
              $4
         FROM webhook_endpoints
        WHERE org_id = $1 AND $3 = ANY(event_types) AND livemode = $5
       RETURNING status`,
      [e.orgId, e.eventId, e.eventType, e.at, e.livemode],
    );
    return rows.filter((r) => r.status === 'pending').length;
  }

  async insertOne(
    manager: Tx,
    d: { orgId: string; endpointId: string; eventId: string; eventType: string; trigger: DeliveryTrigger; now: Date },
  ): Promise<DeliveryRow> {
    const rows = await manager.query<DeliveryRow>(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, trigger, status, next_attempt_at, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, 'pending', $6, $6) RETURNING ${COLUMNS}`,
      [d.orgId, d.endpointId, d.eventId, d.eventType, d.trigger, d.now],
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
   * Claims due deliveries for one worker: SKIP LOCKED so concurrent workers
   * never wait on or share a row, and a lease in database time so a worker
   * that dies loses nothing: the row is due again when the lease runs out.
   */
  async claim(now: Date, limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
    return this.sql.query<ClaimedDelivery>(
      `WITH claimed AS (
         UPDATE webhook_deliveries d
            SET locked_until = now() + make_interval(secs => $3), claim_token = gen_random_uuid()
          WHERE d.id IN (
                SELECT id FROM webhook_deliveries
                 WHERE status = 'pending' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until < now())
                 ORDER BY next_attempt_at
                 LIMIT $2
                 FOR UPDATE SKIP LOCKED)
         RETURNING d.id, d.org_id, d.endpoint_id, d.event_id, d.event_type, d.attempt_count, d.claim_token, d.trigger, d.created_at)
       SELECT c.id, c.org_id AS "orgId", c.endpoint_id AS "endpointId", c.event_id AS "eventId", c.event_type AS "eventType",
              c.attempt_count AS "attemptCount", c.claim_token AS "claimToken", e.url, e.secret_enc AS "secretEnc",
              e.previous_secret_enc AS "previousSecretEnc", e.previous_secret_expires_at AS "previousSecretExpiresAt", e.status AS "endpointStatus",
              c.trigger, c.created_at AS "createdAt"
         FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id`,
      [now, limit, leaseSeconds],
    );
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
        RETURNING d.id`,
      [JSON.stringify(payload)],
    );
    return new Set(rows.map((r) => r.id));
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

  /** Gives leases back (shutdown): the rows are due again at once for any worker. */
  async release(claimTokens: string[]): Promise<number> {
    if (claimTokens.length === 0) return 0;
    return this.sql.execute(
      `UPDATE webhook_deliveries SET locked_until = NULL, claim_token = NULL WHERE claim_token = ANY($1::uuid[]) AND status = 'pending'`,
      [claimTokens],
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

  async deleteOlderThan(cutoff: Date, batchSize: number): Promise<number> {
    return this.sql.execute(
      `DELETE FROM webhook_deliveries WHERE ctid = ANY(ARRAY(SELECT ctid FROM webhook_deliveries WHERE created_at < $1 LIMIT $2)) AND created_at < $1`,
      [cutoff, batchSize],
    );
  }
}
