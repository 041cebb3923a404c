import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, MoreThan, type Repository } from 'typeorm';
import { columns } from '../database/columns.js';
import { DummyValue, GenerateSql } from '../database/generate-sql.js';
import { selectList } from '../database/select-list.js';
import { Database, type Tx } from '../database/sql.js';
import { ApiKeyEntity } from './entities/api-key.entity.js';

export type NewApiKey = Omit<ApiKeyEntity, 'id' | 'lastUsedAt' | 'revokedAt'>;

/** Every column of a key, for the lookup on every authenticated request. */
const KEY = selectList(ApiKeyEntity, null, [
  'id',
  'orgId',
  'name',
  'prefix',
  'last4',
  'keyHash',
  'permissionSet',
  'scopes',
  'expiresAt',
  'lastUsedAt',
  'createdAt',
  'revokedAt',
  'livemode',
]);

/** Column names: under the batched write's alias, and alone (its SET's target, the lookup's). */
const [k, col] = [columns(ApiKeyEntity, 'k'), columns(ApiKeyEntity)];

/**
 * The `api_keys` table. The lookup of every authenticated request and the batched `last_used_at` write are written
 * out; the owner's actions (create, list, revoke) go through TypeORM's repository.
 */
@Injectable()
export class ApiKeyRepository {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    private readonly db: Database,
  ) {}

  /** On every authenticated request whose principal is not cached: a prepared statement on the unique prefix index. */
  @GenerateSql({ params: ['abcdefgh'] })
  async findByPrefix(prefix: string): Promise<ApiKeyEntity | null> {
    const [row] = await this.db.prepared('api_key_by_prefix', KEY, `SELECT ${KEY} FROM api_keys WHERE ${col.prefix} = $1`, [prefix]);
    return row ?? null;
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ id });
  }

  /** Inside the transaction that goes on to change the key: read under the row's lock. */
  lockById(tx: Tx, id: string): Promise<ApiKeyEntity | null> {
    return tx.getRepository(ApiKeyEntity).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Newest first. */
  listForOrg(orgId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { orgId }, order: { createdAt: 'DESC' } });
  }

  /** Active keys of one mode: the limit counts live and test keys each on their own. */
  countActive(tx: Tx, orgId: string, livemode: boolean, now: Date): Promise<number> {
    const active = { orgId, livemode, revokedAt: IsNull() };
    return tx.getRepository(ApiKeyEntity).count({
      where: [
        { ...active, expiresAt: IsNull() },
        { ...active, expiresAt: MoreThan(now) },
      ],
    });
  }

  prefixTaken(tx: Tx, prefix: string): Promise<boolean> {
    return tx.getRepository(ApiKeyEntity).existsBy({ prefix });
  }

  async insert(tx: Tx, key: NewApiKey): Promise<ApiKeyEntity> {
    const keys = tx.getRepository(ApiKeyEntity);
    const row = keys.create({ ...key, lastUsedAt: null, revokedAt: null });
    // TypeORM sets the id the database gave it on `row`.
    await keys.insert(row);
    return row;
  }

  /** Returns false when the key was already revoked. */
  async revoke(tx: Tx, id: string, now: Date): Promise<boolean> {
    const result = await tx.getRepository(ApiKeyEntity).update({ id, revokedAt: IsNull() }, { revokedAt: now });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Uses noted since the last write (last-used.ts), all in one statement; a key's
   * last_used_at moves only when it is a minute stale.
   */
  @GenerateSql({ params: [new Map([[DummyValue.UUID, DummyValue.DATE]])] })
  async touchMany(uses: Map<string, Date>): Promise<void> {
    await this.db.execute(
      `UPDATE api_keys k SET ${col.lastUsedAt} = u.at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
        WHERE ${k.id} = u.id AND (${k.lastUsedAt} IS NULL OR ${k.lastUsedAt} < u.at - interval '1 minute')`,
      [[...uses.keys()], [...uses.values()]],
    );
  }
}
