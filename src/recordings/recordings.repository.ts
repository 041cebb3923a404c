import { Injectable } from '@nestjs/common';
import { PoolSql } from '../database/pool-sql.js';
import type { Tx } from '../database/sql.js';
import type { RecordingLinksRow, RecordingsRow } from './recordings.tables.js';

export interface RecordingRow {
  id: string;
  orgId: string;
  callId: string;
  storageKey: string;
  sizeBytes: number;
  updatedAt: Date;
}

export interface LinkTarget {
  linkId: string;
  orgId: string;
  callId: string;
  createdByKeyId: string;
  expiresAt: Date;
  storageKey: string;
}

type RecordingColumns = Pick<RecordingsRow, 'id' | 'org_id' | 'call_id' | 'storage_key' | 'size_bytes' | 'updated_at'>;

const toRecording = (r: RecordingColumns): RecordingRow => ({
  id: r.id,
  orgId: r.org_id,
  callId: r.call_id,
  storageKey: r.storage_key,
  sizeBytes: Number(r.size_bytes),
  updatedAt: r.updated_at,
});

/** Every query names the firm, except the token lookup, where the token's hash is the key. */
@Injectable()
export class RecordingsRepository {
  constructor(private readonly sql: PoolSql) {}

  async findByCall(orgId: string, callId: string): Promise<RecordingRow | null> {
    const rows = await this.sql.query<RecordingColumns>(
      `SELECT id, org_id, call_id, storage_key, size_bytes, updated_at FROM recordings WHERE org_id = $1 AND call_id = $2`,
      [orgId, callId],
    );
    return rows.length ? toRecording(rows[0]) : null;
  }

  /**
   * Points the call's recording at a new stored object; returns the previous
   * object's key (to remove after commit) or null. The row lock (or the
   * unique index, for two first uploads racing) serialises writers, so no
   * replaced key is ever lost.
   */
  async upsert(
    manager: Tx,
    r: { orgId: string; callId: string; storageKey: string; sizeBytes: number; sha256: Buffer; now: Date },
  ): Promise<{ id: string; previousKey: string | null }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await manager.query<Pick<RecordingsRow, 'id' | 'storage_key'>>(
        `SELECT id, storage_key FROM recordings WHERE org_id = $1 AND call_id = $2 FOR UPDATE`,
        [r.orgId, r.callId],
      );
      if (current.length) {
        await manager.execute(`UPDATE recordings SET storage_key = $2, size_bytes = $3, sha256 = $4, updated_at = $5 WHERE id = $1`, [
          current[0].id,
          r.storageKey,
          r.sizeBytes,
          r.sha256,
          r.now,
        ]);
        return { id: current[0].id, previousKey: current[0].storage_key };
      }
      const inserted = await manager.query<Pick<RecordingsRow, 'id'>>(
        `INSERT INTO recordings (org_id, call_id, storage_key, size_bytes, sha256, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6)
         ON CONFLICT (org_id, call_id) DO NOTHING
         RETURNING id`,
        [r.orgId, r.callId, r.storageKey, r.sizeBytes, r.sha256, r.now],
      );
      if (inserted.length) return { id: inserted[0].id, previousKey: null };
    }
    throw new Error('recording row kept changing under concurrent uploads');
  }

  /** Deletes the call's recording (its links go with it, ON DELETE CASCADE); returns the stored object's key. */
  async delete(manager: Tx, orgId: string, callId: string): Promise<string | null> {
    const rows = await manager.query<Pick<RecordingsRow, 'storage_key'>>(
      `DELETE FROM recordings WHERE org_id = $1 AND call_id = $2 RETURNING storage_key`,
      [orgId, callId],
    );
    return rows.length ? rows[0].storage_key : null;
  }

  /** Which of these storage keys a recording row points to (the sweep keeps those objects). */
  async referencedKeys(keys: string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const rows = await this.sql.query<Pick<RecordingsRow, 'storage_key'>>(
      `SELECT storage_key FROM recordings WHERE storage_key = ANY($1::text[])`,
      [keys],
    );
    return new Set(rows.map((r) => r.storage_key));
  }

  /** The recording a new link will point to, locked against removal until the link is committed. */
  async lockForLink(manager: Tx, orgId: string, callId: string): Promise<{ id: string } | null> {
    const rows = await manager.query<Pick<RecordingsRow, 'id'>>(
      `SELECT id FROM recordings WHERE org_id = $1 AND call_id = $2 FOR KEY SHARE`,
      [orgId, callId],
    );
    return rows.length ? { id: rows[0].id } : null;
  }

  async insertLink(
    manager: Tx,
    l: { orgId: string; recordingId: string; callId: string; tokenHash: Buffer; createdByKeyId: string; createdAt: Date; expiresAt: Date },
  ): Promise<string> {
    const rows = await manager.query<Pick<RecordingLinksRow, 'id'>>(
      `INSERT INTO recording_links (org_id, recording_id, call_id, token_hash, created_by_key_id, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       RETURNING id`,
      [l.orgId, l.recordingId, l.callId, l.tokenHash, l.createdByKeyId, l.createdAt, l.expiresAt],
    );
    return rows[0].id;
  }

  /** Expired links are useless; drop the firm's on each new link so the table stays small. */
  async deleteExpiredLinks(manager: Tx, orgId: string, now: Date): Promise<void> {
    await manager.execute(`DELETE FROM recording_links WHERE org_id = $1 AND expires_at <= $2`, [orgId, now]);
  }

  /** A link and the recording it plays; null when the hash is unknown or the recording was removed. */
  async findLinkTarget(tokenHash: Buffer): Promise<LinkTarget | null> {
    const rows = await this.sql.query<
      Pick<RecordingLinksRow, 'id' | 'org_id' | 'call_id' | 'created_by_key_id' | 'expires_at'> & Pick<RecordingsRow, 'storage_key'>
    >(
      `SELECT l.id, l.org_id, l.call_id, l.created_by_key_id, l.expires_at, r.storage_key
         FROM recording_links l
         JOIN recordings r ON r.id = l.recording_id
        WHERE l.token_hash = $1`,
      [tokenHash],
    );
    if (!rows.length) return null;
    const r = rows[0];
    return {
      linkId: r.id,
      orgId: r.org_id,
      callId: r.call_id,
      createdByKeyId: r.created_by_key_id,
      expiresAt: r.expires_at,
      storageKey: r.storage_key,
    };
  }
}
