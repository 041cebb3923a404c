import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { Tx } from '../database/sql.js';
import type { DisabledReason, EndpointRow } from './webhooks.tables.js';

const COLUMNS = `id, org_id AS "orgId", url, description, event_types AS "eventTypes", status, disabled_reason AS "disabledReason",
  secret_enc AS "secretEnc", secret_last4 AS "secretLast4",
  previous_secret_enc AS "previousSecretEnc", previous_secret_expires_at AS "previousSecretExpiresAt", last_success_at AS "lastSuccessAt", last_failure_at AS "lastFailureAt",
  failing_since AS "failingSince", health_since AS "healthSince", created_at AS "createdAt", updated_at AS "updatedAt", livemode`;

export type { EndpointRow } from './webhooks.tables.js';

export interface EndpointHealth {
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  failingSince: Date | null;
}

/**
 * Endpoint rows. Writers that also touch deliveries lock the endpoint row
 * first (FOR NO KEY UPDATE, which leaves delivery inserts referencing it
 * unblocked), then the deliveries: one lock order everywhere, no deadlocks.
 */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly sql: PoolSql) {}

  async insert(
    manager: Tx,
    e: Omit<
      EndpointRow,
      'lastSuccessAt' | 'lastFailureAt' | 'failingSince' | 'updatedAt' | 'healthSince' | 'previousSecretEnc' | 'previousSecretExpiresAt'
    >,
  ): Promise<EndpointRow> {
    const rows = await manager.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, org_id, url, description, event_types, status, disabled_reason, secret_enc, secret_last4, health_since, created_at, updated_at, livemode)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $10, $11) RETURNING ${COLUMNS}`,
      [e.id, e.orgId, e.url, e.description, e.eventTypes, e.status, e.disabledReason, e.secretEnc, e.secretLast4, e.createdAt, e.livemode],
    );
    return rows[0];
  }

  /** The firm's endpoints of one mode: the limit counts live and test endpoints each on their own. */
  async countForOrg(manager: Tx, orgId: string, livemode: boolean): Promise<number> {
    const rows = await manager.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_endpoints WHERE org_id = $1 AND livemode = $2`,
      [orgId, livemode],
    );
    return rows[0].n;
  }

  /** Newest first; of one mode, or of both (null: the owner's list). */
  async listForOrg(orgId: string, livemode: boolean | null): Promise<EndpointRow[]> {
    return this.sql.query<EndpointRow>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE org_id = $1 AND ($2::boolean IS NULL OR livemode = $2) ORDER BY created_at DESC, id DESC`,
      [orgId, livemode],
    );
  }

  async findById(id: string): Promise<EndpointRow | null> {
    const rows = await this.sql.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** The firm's endpoint of this mode, row-locked for the rest of the transaction (serialises test/redeliver rate checks). */
  async lockForOrg(manager: Tx, orgId: string, livemode: boolean, id: string): Promise<EndpointRow | null> {
    const rows = await manager.query<EndpointRow>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1 AND org_id = $2 AND livemode = $3 FOR NO KEY UPDATE`,
      [id, orgId, livemode],
    );
    return rows[0] ?? null;
  }

  async lockById(manager: Tx, id: string): Promise<EndpointRow | null> {
    const rows = await manager.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE`, [id]);
    return rows[0] ?? null;
  }

  /** Locks several endpoints in id order (the dispatcher's recording transaction). */
  async lockMany(manager: Tx, ids: string[]): Promise<EndpointRow[]> {
    if (ids.length === 0) return [];
    return manager.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`, [
      ids,
    ]);
  }

  async disable(manager: Tx, id: string, reason: DisabledReason, now: Date): Promise<void> {
    await manager.execute(`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $2, updated_at = $3 WHERE id = $1`, [
      id,
      reason,
      now,
    ]);
  }

  /** Back on: the failing run and the 3-day rule start afresh. */
  async enable(manager: Tx, id: string, now: Date): Promise<void> {
    await manager.execute(
      `UPDATE webhook_endpoints SET status = 'enabled', disabled_reason = NULL, failing_since = NULL, health_since = $2, updated_at = $2 WHERE id = $1`,
      [id, now],
    );
  }

  async setHealth(manager: Tx, id: string, h: EndpointHealth): Promise<void> {
    await manager.execute(`UPDATE webhook_endpoints SET last_success_at = $2, last_failure_at = $3, failing_since = $4 WHERE id = $1`, [
      id,
      h.lastSuccessAt,
      h.lastFailureAt,
      h.failingSince,
    ]);
  }

  /** A new current secret; the one it replaces signs too until `previousExpiresAt` (none when null). */
  async rotateSecret(
    manager: Tx,
    id: string,
    s: { secretEnc: string; secretLast4: string; previousSecretEnc: string | null; previousExpiresAt: Date | null; now: Date },
  ): Promise<void> {
    await manager.execute(
      `UPDATE webhook_endpoints SET secret_enc = $2, secret_last4 = $3, previous_secret_enc = $4, previous_secret_expires_at = $5, updated_at = $6
        WHERE id = $1`,
      [id, s.secretEnc, s.secretLast4, s.previousSecretEnc, s.previousExpiresAt, s.now],
    );
  }

  /** Enabled endpoints in a run of failures, and how long the oldest run has lasted (0 when none): for the alert rules. */
  async failingStats(now: Date): Promise<{ failing: number; oldestFailingSeconds: number }> {
    const [row] = await this.sql.query<{ failing: number; oldest: number }>(
      `SELECT count(*)::int AS failing, COALESCE(EXTRACT(EPOCH FROM ($1::timestamptz - min(failing_since))), 0)::float8 AS oldest
         FROM webhook_endpoints WHERE status = 'enabled' AND failing_since IS NOT NULL`,
      [now],
    );
    return { failing: row.failing, oldestFailingSeconds: row.oldest };
  }

  async delete(manager: Tx, id: string): Promise<void> {
    await manager.execute(`DELETE FROM webhook_endpoints WHERE id = $1`, [id]);
  }
}
