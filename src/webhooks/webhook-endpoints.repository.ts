import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql, SQL } from '../database/generate-sql.js';
import { selectList, type RowOf } from '../database/select-list.js';
import { Database, type Tx } from '../database/sql.js';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity.js';
import type { DisabledReason } from './webhook-model.js';

export type NewEndpoint = Omit<
  WebhookEndpointEntity,
  'lastSuccessAt' | 'lastFailureAt' | 'failingSince' | 'updatedAt' | 'healthSince' | 'previousSecretEnc' | 'previousSecretExpiresAt'
>;

/** Column names: under the health update's alias, and alone (its SET's targets, the aggregate's). */
const [e, col] = [columns(WebhookEndpointEntity, 'e'), columns(WebhookEndpointEntity)];

/** An endpoint as the recording transaction locks it: its health, its firm and mode, and what an owner's notice names. */
const LOCKED = selectList(WebhookEndpointEntity, 'e', [
  'id',
  'orgId',
  'url',
  'status',
  'livemode',
  'lastSuccessAt',
  'lastFailureAt',
  'failingSince',
  'healthSince',
]);
export type LockedEndpoint = RowOf<typeof LOCKED>;

export type EndpointHealth = Pick<WebhookEndpointEntity, 'lastSuccessAt' | 'lastFailureAt' | 'failingSince'>;

/**
 * Endpoint rows, through TypeORM's repository; the result batches' health update and the alerting aggregate written
 * out. Writers that also touch deliveries lock the endpoint row first (FOR NO KEY UPDATE, which leaves delivery
 * inserts referencing it unblocked), then the deliveries: one lock order everywhere, no deadlocks.
 */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(
    @InjectRepository(WebhookEndpointEntity) private readonly endpoints: Repository<WebhookEndpointEntity>,
    private readonly db: Database,
  ) {}

  /** A new endpoint, healthy from its creation. */
  async insert(tx: Tx, endpoint: NewEndpoint): Promise<WebhookEndpointEntity> {
    const endpoints = tx.getRepository(WebhookEndpointEntity);
    const row = endpoints.create({
      ...endpoint,
      lastSuccessAt: null,
      lastFailureAt: null,
      failingSince: null,
      healthSince: endpoint.createdAt,
      updatedAt: endpoint.createdAt,
      previousSecretEnc: null,
      previousSecretExpiresAt: null,
    });
    await endpoints.insert(row);
    return row;
  }

  /** The firm's endpoints of one mode: the limit counts live and test endpoints each on their own. */
  countForOrg(tx: Tx, orgId: string, livemode: boolean): Promise<number> {
    return tx.getRepository(WebhookEndpointEntity).countBy({ orgId, livemode });
  }

  /** Newest first; of one mode, or of both (null: the owner's list). */
  listForOrg(orgId: string, livemode: boolean | null): Promise<WebhookEndpointEntity[]> {
    return this.endpoints.find({ where: livemode === null ? { orgId } : { orgId, livemode }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  findById(id: string): Promise<WebhookEndpointEntity | null> {
    return this.endpoints.findOneBy({ id });
  }

  /** The firm's endpoint of this mode, row-locked for the rest of the transaction (serialises test/redeliver rate checks). */
  lockForOrg(tx: Tx, orgId: string, livemode: boolean, id: string): Promise<WebhookEndpointEntity | null> {
    return tx.getRepository(WebhookEndpointEntity).findOne({ where: { id, orgId, livemode }, lock: { mode: 'for_no_key_update' } });
  }

  lockById(tx: Tx, id: string): Promise<WebhookEndpointEntity | null> {
    return tx.getRepository(WebhookEndpointEntity).findOne({ where: { id }, lock: { mode: 'for_no_key_update' } });
  }

  /**
   * Locks several endpoints in id order (the dispatcher's recording transaction, once per batch of results), reading
   * what the batch's plan and notices need. Written out rather than TypeORM's `find`, whose query building ran on the
   * worker's one thread for every batch (docs/benchmarks.md, issue 45, second round).
   */
  @GenerateSql({ params: [SQL, [DummyValue.UUID]] })
  async lockMany(tx: Tx, ids: string[]): Promise<LockedEndpoint[]> {
    if (ids.length === 0) return [];
    return tx.query(
      LOCKED,
      `SELECT ${LOCKED} FROM webhook_endpoints e WHERE ${e.id} = ANY($1::uuid[]) ORDER BY ${e.id} FOR NO KEY UPDATE`,
      [ids],
    );
  }

  async disable(tx: Tx, id: string, reason: DisabledReason, now: Date): Promise<void> {
    await tx.getRepository(WebhookEndpointEntity).update({ id }, { status: 'disabled', disabledReason: reason, updatedAt: now });
  }

  /** The owner's change of its label and subscriptions (`endpoint update`, the console's "Save"). */
  async update(tx: Tx, id: string, changes: Partial<Pick<WebhookEndpointEntity, 'description' | 'eventTypes'>>, now: Date): Promise<void> {
    await tx.getRepository(WebhookEndpointEntity).update({ id }, { ...changes, updatedAt: now });
  }

  /** Back on: the failing run and the 3-day rule start afresh. */
  async enable(tx: Tx, id: string, now: Date): Promise<void> {
    await tx
      .getRepository(WebhookEndpointEntity)
      .update({ id }, { status: 'enabled', disabledReason: null, failingSince: null, healthSince: now, updatedAt: now });
  }

  /** The health of several endpoints (already locked by the caller), one statement for all of them. */
  @GenerateSql({
    params: [SQL, [{ id: DummyValue.UUID, health: { lastSuccessAt: DummyValue.DATE, lastFailureAt: null, failingSince: null } }]],
  })
  async setHealthMany(tx: Tx, updates: { id: string; health: EndpointHealth }[]): Promise<void> {
    if (updates.length === 0) return;
    const rows = updates.map(({ id, health: h }) => ({
      id,
      last_success_at: h.lastSuccessAt?.toISOString() ?? null,
      last_failure_at: h.lastFailureAt?.toISOString() ?? null,
      failing_since: h.failingSince?.toISOString() ?? null,
    }));
    await tx.execute(
      `UPDATE webhook_endpoints e
          SET ${col.lastSuccessAt} = x.last_success_at, ${col.lastFailureAt} = x.last_failure_at, ${col.failingSince} = x.failing_since
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, last_success_at timestamptz, last_failure_at timestamptz, failing_since timestamptz)
        WHERE ${e.id} = x.id`,
      [JSON.stringify(rows)],
    );
  }

  /** A new current secret (and scheme); the one it replaces signs too until `previousExpiresAt` (none when null). */
  async rotateSecret(
    tx: Tx,
    id: string,
    s: Pick<WebhookEndpointEntity, 'secretEnc' | 'secretLast4' | 'signature' | 'publicKey'> & {
      previousSecretEnc: string | null;
      previousExpiresAt: Date | null;
      now: Date;
    },
  ): Promise<void> {
    await tx.getRepository(WebhookEndpointEntity).update(
      { id },
      {
        secretEnc: s.secretEnc,
        secretLast4: s.secretLast4,
        signature: s.signature,
        publicKey: s.publicKey,
        previousSecretEnc: s.previousSecretEnc,
        previousSecretExpiresAt: s.previousExpiresAt,
        updatedAt: s.now,
      },
    );
  }

  /** Enabled endpoints in a run of failures, and how long the oldest run has lasted (0 when none): for the alert rules. */
  @GenerateSql({ params: [DummyValue.DATE], rows: 'one' })
  async failingStats(now: Date): Promise<{ failing: number; oldestFailingSeconds: number }> {
    const [row] = await this.db.query<{ failing: number; oldest: number }>(
      `SELECT count(*)::int AS failing, COALESCE(EXTRACT(EPOCH FROM ($1::timestamptz - min(${col.failingSince}))), 0)::float8 AS oldest
         FROM webhook_endpoints WHERE ${col.status} = 'enabled' AND ${col.failingSince} IS NOT NULL`,
      [now],
    );
    return { failing: row.failing, oldestFailingSeconds: row.oldest };
  }

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.getRepository(WebhookEndpointEntity).delete({ id });
  }
}
