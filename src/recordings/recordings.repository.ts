import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, LessThanOrEqual, type Repository } from 'typeorm';
import { columns } from '../database/columns.js';
import { GenerateSql } from '../database/generate-sql.js';
import { computed, selectList, type RowOf } from '../database/select-list.js';
import { Database, type Tx } from '../database/sql.js';
import { RecordingLinkEntity } from './entities/recording-link.entity.js';
import { RecordingEntity } from './entities/recording.entity.js';

/** Column names: the link's and its recording's, under the lookup's aliases. */
const [l, r] = [columns(RecordingLinkEntity, 'l'), columns(RecordingEntity, 'r')];

/** A link and the recording it plays (the link's columns named for what they are). */
const LINK_TARGET = selectList(RecordingLinkEntity, 'l', ['orgId', 'callId', 'createdByKeyId', 'expiresAt'])
  .and(computed<{ linkId: string }>(`${l.id} AS "linkId"`))
  .and(selectList(RecordingEntity, 'r', ['storageKey']));

export type LinkTarget = RowOf<typeof LINK_TARGET>;

export type RecordingRow = Pick<RecordingEntity, 'id' | 'orgId' | 'callId' | 'storageKey'>;

/**
 * Recordings and their links. Every query names the firm, except the token lookup (written out: it runs on every
 * playback), where the token's hash is the key; the rest through TypeORM's repositories.
 */
@Injectable()
export class RecordingsRepository {
  constructor(
    @InjectRepository(RecordingEntity) private readonly recordings: Repository<RecordingEntity>,
    private readonly db: Database,
  ) {}

  findByCall(orgId: string, callId: string): Promise<RecordingRow | null> {
    return this.recordings.findOne({ select: { id: true, orgId: true, callId: true, storageKey: true }, where: { orgId, callId } });
  }

  /**
   * Points the call's recording at a new stored object; returns the previous
   * object's key (to remove after commit) or null. The row lock (or the
   * unique index, for two first uploads racing) serialises writers, so no
   * replaced key is ever lost.
   */
  async upsert(
    tx: Tx,
    r: { orgId: string; callId: string; storageKey: string; sizeBytes: number; sha256: Buffer; now: Date },
  ): Promise<{ id: string; previousKey: string | null }> {
    const recordings = tx.getRepository(RecordingEntity);
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await recordings.findOne({
        select: { id: true, storageKey: true },
        where: { orgId: r.orgId, callId: r.callId },
        lock: { mode: 'pessimistic_write' },
      });
      if (current) {
        const size = String(r.sizeBytes);
        await recordings.update({ id: current.id }, { storageKey: r.storageKey, sizeBytes: size, sha256: r.sha256, updatedAt: r.now });
        return { id: current.id, previousKey: current.storageKey };
      }
      const inserted = await recordings
        .createQueryBuilder()
        .insert()
        .values({
          orgId: r.orgId,
          callId: r.callId,
          storageKey: r.storageKey,
          sizeBytes: String(r.sizeBytes),
          sha256: r.sha256,
          createdAt: r.now,
          updatedAt: r.now,
        })
        .orIgnore()
        .execute();
      // Nothing inserted: another upload's first row won the race; its row is updated on the next turn.
      const [row] = inserted.raw as Pick<RecordingEntity, 'id'>[];
      if (row) return { id: row.id, previousKey: null };
    }
    throw new Error('recording row kept changing under concurrent uploads');
  }

  /** Deletes the call's recording (its links go with it, ON DELETE CASCADE); returns the stored object's key. */
  async delete(tx: Tx, orgId: string, callId: string): Promise<string | null> {
    const recordings = tx.getRepository(RecordingEntity);
    const row = await recordings.findOne({
      select: { id: true, storageKey: true },
      where: { orgId, callId },
      lock: { mode: 'pessimistic_write' },
    });
    if (!row) return null;
    await recordings.delete({ id: row.id });
    return row.storageKey;
  }

  /** Which of these storage keys a recording row points to (the sweep keeps those objects). */
  async referencedKeys(keys: string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const rows = await this.recordings.find({ select: { storageKey: true }, where: { storageKey: In(keys) } });
    return new Set(rows.map((r) => r.storageKey));
  }

  /** The recording a new link will point to, locked against removal until the link is committed. */
  lockForLink(tx: Tx, orgId: string, callId: string): Promise<Pick<RecordingEntity, 'id'> | null> {
    return tx.getRepository(RecordingEntity).findOne({ select: { id: true }, where: { orgId, callId }, lock: { mode: 'for_key_share' } });
  }

  async insertLink(tx: Tx, l: Omit<RecordingLinkEntity, 'id'>): Promise<string> {
    const { identifiers } = await tx.getRepository(RecordingLinkEntity).insert(l);
    return (identifiers[0] as Pick<RecordingLinkEntity, 'id'>).id;
  }

  /** Expired links are useless; drop the firm's on each new link so the table stays small. */
  async deleteExpiredLinks(tx: Tx, orgId: string, now: Date): Promise<void> {
    await tx.getRepository(RecordingLinkEntity).delete({ orgId, expiresAt: LessThanOrEqual(now) });
  }

  /** A link and the recording it plays; null when the hash is unknown or the recording was removed. */
  @GenerateSql({ params: [Buffer.alloc(32)] })
  async findLinkTarget(tokenHash: Buffer): Promise<LinkTarget | null> {
    const [row] = await this.db.query(
      LINK_TARGET,
      `SELECT ${LINK_TARGET}
         FROM recording_links l
         JOIN recordings r ON ${r.id} = ${l.recordingId}
        WHERE ${l.tokenHash} = $1`,
      [tokenHash],
    );
    return row ?? null;
  }
}
