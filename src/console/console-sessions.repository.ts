import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, LessThan, type Repository } from 'typeorm';
import { ConsoleLinkEntity } from './entities/console-link.entity.js';
import { ConsoleSessionEntity } from './entities/console-session.entity.js';

/** A session as the access stage reads it. */
export type SessionRow = Pick<ConsoleSessionEntity, 'id' | 'orgId' | 'livemode' | 'expiresAt'>;
/** The link a sign-in used: whose console it opens. */
export type RedeemedLink = Pick<ConsoleLinkEntity, 'id' | 'orgId' | 'livemode'>;

/** `console_links` and `console_sessions`, through TypeORM's repositories (a cold path: one sign-in, one lookup per page). */
@Injectable()
export class ConsoleSessionsRepository {
  constructor(
    @InjectRepository(ConsoleLinkEntity) private readonly links: Repository<ConsoleLinkEntity>,
    @InjectRepository(ConsoleSessionEntity) private readonly sessions: Repository<ConsoleSessionEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async insertLink(link: Omit<ConsoleLinkEntity, 'usedAt'>): Promise<void> {
    await this.links.insert({ ...link, usedAt: null });
  }

  /** The firm's links whose sessions can no longer be alive (their sessions go with them). */
  async purgeLinks(orgId: string, expiredBefore: Date): Promise<void> {
    await this.links.delete({ orgId, expiresAt: LessThan(expiredBefore) });
  }

  /**
   * Marks the link used and opens the session, in one transaction. The UPDATE takes only a link that is unused and
   * unexpired, so of two browsers opening it at once exactly one gets a session. Null: no such usable link.
   */
  redeem(tokenHash: Buffer, now: Date, session: Omit<ConsoleSessionEntity, 'orgId' | 'livemode' | 'linkId'>): Promise<RedeemedLink | null> {
    return this.dataSource.transaction(async (tx) => {
      const used = await tx
        .createQueryBuilder()
        .update(ConsoleLinkEntity)
        .set({ usedAt: now })
        .where('token_hash = :tokenHash AND used_at IS NULL AND expires_at > :now', { tokenHash, now })
        .returning(['id', 'orgId', 'livemode'])
        .execute();
      const row = (used.raw as { id: string; org_id: string; livemode: boolean }[])[0];
      if (!row) return null;
      const link: RedeemedLink = { id: row.id, orgId: row.org_id, livemode: row.livemode };
      await tx.getRepository(ConsoleSessionEntity).delete({ orgId: link.orgId, expiresAt: LessThan(now) });
      await tx.getRepository(ConsoleSessionEntity).insert({ ...session, orgId: link.orgId, livemode: link.livemode, linkId: link.id });
      return link;
    });
  }

  findLink(tokenHash: Buffer): Promise<Pick<ConsoleLinkEntity, 'usedAt' | 'expiresAt'> | null> {
    return this.links.findOne({ select: { usedAt: true, expiresAt: true }, where: { tokenHash } });
  }

  findSession(sessionHash: Buffer): Promise<SessionRow | null> {
    return this.sessions.findOne({ select: { id: true, orgId: true, livemode: true, expiresAt: true }, where: { sessionHash } });
  }

  async deleteSession(id: string): Promise<void> {
    await this.sessions.delete({ id });
  }
}
