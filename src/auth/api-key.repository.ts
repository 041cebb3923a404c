import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { Tx } from '../database/sql.js';
import type { Camelized } from '../database/tables.js';
import type { ApiKeysRow } from './auth.tables.js';

/** A key as the service sees it: the row, named in camelCase (`key_hash` is the SHA-256 of the whole key; the key is never stored). */
export type ApiKey = Camelized<ApiKeysRow>;

export type NewApiKey = Omit<ApiKey, 'id' | 'lastUsedAt' | 'revokedAt'>;

const COLUMNS =
  'id, org_id, name, prefix, last4, key_hash, permission_set, scopes, expires_at, last_used_at, created_at, revoked_at, livemode';

const toApiKey = (r: ApiKeysRow): ApiKey => ({
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
  livemode: r.livemode,
});

@Injectable()
export class ApiKeyRepository {
  constructor(private readonly sql: PoolSql) {}

  /** On every authenticated request: a prepared statement on the unique prefix index. */
  async findByPrefix(prefix: string): Promise<ApiKey | null> {
    const rows = await this.sql.prepared<ApiKeysRow>('api_key_by_prefix', `SELECT ${COLUMNS} FROM api_keys WHERE prefix = $1`, [prefix]);
    return rows[0] ? toApiKey(rows[0]) : null;
  }

  async findById(id: string): Promise<ApiKey | null> {
    const rows = await this.sql.query<ApiKeysRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return rows[0] ? toApiKey(rows[0]) : null;
  }

  /** Inside the transaction that goes on to change the key: read under the row's lock. */
  async lockById(tx: Tx, id: string): Promise<ApiKey | null> {
    const rows = await tx.query<ApiKeysRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [id]);
    return rows[0] ? toApiKey(rows[0]) : null;
  }

  async listForOrg(orgId: string): Promise<ApiKey[]> {
    const rows = await this.sql.query<ApiKeysRow>(`SELECT ${COLUMNS} FROM api_keys WHERE org_id = $1 ORDER BY created_at DESC`, [orgId]);
    return rows.map(toApiKey);
  }

  /** Active keys of one mode: the limit counts live and test keys each on their own. */
  async countActive(tx: Tx, orgId: string, livemode: boolean, now: Date): Promise<number> {
    const [row] = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM api_keys
        WHERE org_id = $1 AND livemode = $3 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`,
      [orgId, now, livemode],
    );
    return row.n;
  }

  async prefixTaken(tx: Tx, prefix: string): Promise<boolean> {
    const rows = await tx.query<Pick<ApiKeysRow, 'id'>>('SELECT id FROM api_keys WHERE prefix = $1', [prefix]);
    return rows.length > 0;
  }

  async insert(tx: Tx, key: NewApiKey): Promise<ApiKey> {
    const [row] = await tx.query<ApiKeysRow>(
      `INSERT INTO api_keys (org_id, name, prefix, last4, key_hash, permission_set, scopes, expires_at, created_at, livemode)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
      [key.orgId, key.name, key.prefix, key.last4, key.keyHash, key.permissionSet, key.scopes, key.expiresAt, key.createdAt, key.livemode],
    );
    return toApiKey(row);
  }

  /** Returns false when the key was already revoked. */
  async revoke(tx: Tx, id: string, now: Date): Promise<boolean> {
    return (await tx.execute('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, now])) > 0;
  }

  /** Moves last_used_at only when it is a minute stale, so a busy key does not write on every request. */
  async touch(id: string, now: Date): Promise<void> {
    await this.sql.execute(
      `UPDATE api_keys SET last_used_at = $2
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
      [id, now],
    );
  }
}
