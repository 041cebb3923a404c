import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, LessThan, MoreThan, type Repository } from 'typeorm';
import type { Tx } from '../database/sql.js';
import { ConsoleLinkEntity } from './entities/console-link.entity.js';
import { ConsoleSessionEntity } from './entities/console-session.entity.js';

/** A session as the access stage reads it. */
export type SessionRow = Pick<ConsoleSessionEntity, 'id' | 'orgId' | 'livemode' | 'expiresAt' | 'readOnly' | 'lastSeenAt'>;
/** A session as `console sessions` lists it. */
export type ListedSession = Pick<ConsoleSessionEntity, 'id' | 'createdAt' | 'expiresAt' | 'lastSeenAt' | 'readOnly' | 'livemode'>;
/** The link a sign-in used: whose console it opens, and how. */
export type RedeemedLink = Pick<ConsoleLinkEntity, 'id' | 'orgId' | 'livemode' | 'readOnly'>;

/**
 * `console_links` and `console_sessions`, through TypeORM's repositories (a cold path: one sign-in, one lookup per
 * page). The writes take the transaction their audit row is written in.
 */
@Injectable()
export class ConsoleSessionsRepository {
  constructor(
    @InjectRepository(ConsoleLinkEntity) private readonly links: Repository<ConsoleLinkEntity>,
    @InjectRepository(ConsoleSessionEntity) private readonly sessions: Repository<ConsoleSessionEntity>,
  ) {}

  /** Adds the link, after removing the firm's links whose sessions can no longer be alive (theirs go with them). */
  async insertLink(link: Omit<ConsoleLinkEntity, 'usedAt'>, expiredBefore: Date, tx: Tx): Promise<void> {
    const links = tx.getRepository(ConsoleLinkEntity);
    await links.delete({ orgId: link.orgId, expiresAt: LessThan(expiredBefore) });
    await links.insert({ ...link, usedAt: null });
  }

  /**
   * Marks the link used and opens the session. The UPDATE takes only a link that is unused and unexpired, so of two
   * browsers opening it at once exactly one gets a session. Null: no such usable link.
   */
  async redeem(
    tokenHash: Buffer,
    now: Date,
    session: Omit<ConsoleSessionEntity, 'orgId' | 'livemode' | 'linkId' | 'readOnly'>,
    tx: Tx,
  ): Promise<RedeemedLink | null> {
    const links = tx.getRepository(ConsoleLinkEntity);
    const used = await links.update({ tokenHash, usedAt: IsNull(), expiresAt: MoreThan(now) }, { usedAt: now });
    if (!used.affected) return null;
    // The link is this transaction's now (the UPDATE's row lock): read what the session takes from it.
    const link: RedeemedLink = await links.findOneOrFail({
      select: { id: true, orgId: true, livemode: true, readOnly: true },
      where: { tokenHash },
    });
    const sessions = tx.getRepository(ConsoleSessionEntity);
    await sessions.delete({ orgId: link.orgId, expiresAt: LessThan(now) });
    await sessions.insert({ ...session, orgId: link.orgId, livemode: link.livemode, readOnly: link.readOnly, linkId: link.id });
    return link;
  }

  findLink(tokenHash: Buffer): Promise<Pick<ConsoleLinkEntity, 'usedAt' | 'expiresAt'> | null> {
    return this.links.findOne({ select: { usedAt: true, expiresAt: true }, where: { tokenHash } });
  }

  findSession(sessionHash: Buffer): Promise<SessionRow | null> {
    return this.sessions.findOne({
      select: { id: true, orgId: true, livemode: true, expiresAt: true, readOnly: true, lastSeenAt: true },
      where: { sessionHash },
    });
  }

  /** The session was seen now; written only when its last sighting is before `unlessSince` (once a minute). */
  async touch(id: string, now: Date, unlessSince: Date): Promise<void> {
    await this.sessions.update({ id, lastSeenAt: LessThan(unlessSince) }, { lastSeenAt: now });
  }

  /** The firm's sessions still alive at `now`, newest first. */
  listLive(orgId: string, now: Date): Promise<ListedSession[]> {
    return this.sessions.find({
      select: { id: true, createdAt: true, expiresAt: true, lastSeenAt: true, readOnly: true, livemode: true },
      where: { orgId, expiresAt: MoreThan(now) },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /** Whether there was such a session to end. */
  async deleteSession(id: string, tx: Tx): Promise<boolean> {
    return ((await tx.getRepository(ConsoleSessionEntity).delete({ id })).affected ?? 0) > 0;
  }

  /** Ends the firm's sessions alive at `now` among `ids` (all of them when null); the ids of those there were. */
  async deleteSessions(orgId: string, ids: string[] | null, now: Date, tx: Tx): Promise<string[]> {
    const ended = await tx
      .getRepository(ConsoleSessionEntity)
      .createQueryBuilder()
      .delete()
      .where({ orgId, expiresAt: MoreThan(now), ...(ids === null ? {} : { id: In(ids) }) })
      .returning(['id'])
      .execute();
    return (ended.raw as { id: string }[]).map((r) => r.id);
  }
}
