import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { PoolSql } from '../database/pool-sql.js';
import { ApiKeyEntity } from './entities/api-key.entity.js';

@Injectable()
export class ApiKeyRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: PoolSql,
  ) {}

  /** On every authenticated request: a prepared statement on the unique prefix index (TypeORM's findOne costs several times the query). */
  async findByPrefix(prefix: string): Promise<ApiKeyEntity | null> {
    const rows = await this.sql.prepared(
      'api_key_by_prefix',
      `SELECT id, org_id, name, prefix, last4, key_hash, permission_set, scopes, expires_at, last_used_at, created_at, revoked_at
         FROM api_keys WHERE prefix = $1`,
      [prefix],
    );
    const r = rows[0];
    if (!r) return null;
    return Object.assign(new ApiKeyEntity(), {
      id: r.id,
      orgId: r.org_id,
      name: r.name,
      prefix: r.prefix,
      last4: r.last4,
      keyHash: r.key_hash,
      permissionSet: r.permission_set,
      scopes: r.scopes,
      expiresAt: r.expires_at,
      lastUsedAt: r.last_used_at,
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
    });
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.dataSource.getRepository(ApiKeyEntity).findOneBy({ id });
  }

  listForOrg(orgId: string): Promise<ApiKeyEntity[]> {
    return this.dataSource.getRepository(ApiKeyEntity).find({ where: { orgId }, order: { createdAt: 'DESC' } });
  }

  async countActive(manager: EntityManager, orgId: string, now: Date): Promise<number> {
    const [row] = await manager.query(
      `SELECT count(*)::int AS n FROM api_keys
        WHERE org_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`,
      [orgId, now],
    );
    return row.n;
  }

  prefixTaken(manager: EntityManager, prefix: string): Promise<boolean> {
    return manager.getRepository(ApiKeyEntity).existsBy({ prefix });
  }

  insert(manager: EntityManager, key: Partial<ApiKeyEntity>): Promise<ApiKeyEntity> {
    return manager.getRepository(ApiKeyEntity).save(manager.getRepository(ApiKeyEntity).create(key));
  }

  /** Returns false when the key was already revoked. */
  async revoke(manager: EntityManager, id: string, now: Date): Promise<boolean> {
    const [, affected] = await manager.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, now]);
    return affected > 0;
  }

  /** Moves last_used_at only when it is a minute stale, so a busy key does not write on every request. */
  async touch(id: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE api_keys SET last_used_at = $2
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
      [id, now],
    );
  }
}
