import { Injectable } from '@nestjs/common';
import { AccountService } from '../account/index.js';
import { AuditService } from '../audit/index.js';
import { Clock } from '../common/clock.js';
import { NotFoundError } from '../common/errors/problems.js';
import { isUuid } from '../common/ids.js';
import { Database } from '../database/sql.js';
import { ConsoleSessionsRepository } from './console-sessions.repository.js';

/** A console session as `console sessions --json` prints it: its public handle (never the cookie) and its facts. */
export interface ConsoleSessionView {
  id: string;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  read_only: boolean;
  mode: 'live' | 'test';
}

/**
 * The owner's view of the firm's console sessions (the dashboard's, here the CLI's): which are alive, and ending
 * them. A session ended here is gone from the database, so its next request, in any process, is signed out.
 */
@Injectable()
export class ConsoleSessionsService {
  constructor(
    private readonly repo: ConsoleSessionsRepository,
    private readonly account: AccountService,
    private readonly audit: AuditService,
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** The firm's live sessions, newest first. */
  async list(orgIdOrSlug: string): Promise<ConsoleSessionView[]> {
    const org = await this.account.resolveOrg(orgIdOrSlug);
    return (await this.repo.listLive(org.id, this.clock.now())).map((s) => ({
      id: s.id,
      created_at: s.createdAt.toISOString(),
      expires_at: s.expiresAt.toISOString(),
      last_seen_at: s.lastSeenAt.toISOString(),
      read_only: s.readOnly,
      mode: s.livemode ? 'live' : 'test',
    }));
  }

  /** Ends one session of the firm (another firm's or an unknown id: 404), or all of them (null); the ids ended. */
  async revoke(orgIdOrSlug: string, sessionId: string | null): Promise<string[]> {
    const org = await this.account.resolveOrg(orgIdOrSlug);
    if (sessionId !== null && !isUuid(sessionId)) throw noSuchSession(sessionId);
    return this.db.transaction(async (tx) => {
      const ids = sessionId === null ? null : [sessionId.toLowerCase()];
      const ended = await this.repo.deleteSessions(org.id, ids, this.clock.now(), tx);
      if (sessionId !== null && ended.length === 0) throw noSuchSession(sessionId);
      if (ended.length > 0) {
        await this.audit.record(
          {
            orgId: org.id,
            actor: { type: 'owner', id: null },
            action: 'console.sessions_revoked',
            resourceType: 'console_session',
            resourceIds: ended,
          },
          tx,
        );
      }
      return ended;
    });
  }
}

const noSuchSession = (id: string) => new NotFoundError('The console session', `no console session with id "${id}" for this firm`);
