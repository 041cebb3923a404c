import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AccountService } from '../account/index.js';
import { AuditService } from '../audit/index.js';
import { Clock } from '../common/clock.js';
import { AppConfig } from '../config/app-config.js';
import { Database } from '../database/sql.js';
import { ConsoleSessionsRepository } from './console-sessions.repository.js';
import type { ConsoleSession } from './console-session.js';
import {
  CONSOLE_PATH,
  csrfTokenOf,
  isLinkToken,
  isSessionSecret,
  LINK_LIFETIME_MS,
  newLinkToken,
  newSessionSecret,
  SESSION_LIFETIME_MS,
  sha256,
} from './console-tokens.js';

export interface ConsoleLink {
  url: string;
  expiresAt: Date;
}

/** A sign-in: the session and the secret its cookie carries (returned once, never stored). */
export type SignIn = { ok: true; secret: string; session: ConsoleSession } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

/**
 * The console's door: one-time links (the dashboard, our CLI, mints them for a firm's owner) and the sessions they
 * open. Link tokens and session ids are stored only as SHA-256 hashes and never logged or audited.
 */
@Injectable()
export class ConsoleSignInService {
  private readonly logger = new Logger('Console');

  constructor(
    private readonly db: Database,
    private readonly repo: ConsoleSessionsRepository,
    private readonly account: AccountService,
    private readonly audit: AuditService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** A link that signs one browser in to the firm's console in this mode, once, within 15 minutes. */
  async createLink(orgIdOrSlug: string, livemode: boolean): Promise<ConsoleLink> {
    const org = await this.account.resolveOrg(orgIdOrSlug);
    const token = newLinkToken();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS);
    const id = randomUUID();
    // A link is kept as long as a session it opened could live; older ones go (and their sessions, long ended).
    const expiredBefore = new Date(now.getTime() - SESSION_LIFETIME_MS);
    await this.db.transaction(async (tx) => {
      await this.repo.insertLink({ id, orgId: org.id, livemode, tokenHash: sha256(token), createdAt: now, expiresAt }, expiredBefore, tx);
      await this.audit.record(
        {
          orgId: org.id,
          actor: { type: 'owner', id: null },
          action: 'console_link.created',
          resourceType: 'console_link',
          resourceIds: [id],
          details: { mode: livemode ? 'live' : 'test', expires_at: expiresAt.toISOString() },
        },
        tx,
      );
    });
    return { url: `${this.config.baseUrl}${CONSOLE_PATH}/sign-in/${token}`, expiresAt };
  }

  /** Opens a session with the link, which then never opens another; a used, expired or unknown link opens none. */
  async signIn(token: string): Promise<SignIn> {
    if (!isLinkToken(token)) return { ok: false, reason: 'unknown' };
    const secret = newSessionSecret();
    const now = this.clock.now();
    const session = {
      id: randomUUID(),
      sessionHash: sha256(secret),
      createdAt: now,
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
    };
    const link = await this.db.transaction(async (tx) => {
      const redeemed = await this.repo.redeem(sha256(token), now, session, tx);
      if (!redeemed) return null;
      await this.audit.record(
        {
          orgId: redeemed.orgId,
          actor: { type: 'console_session', id: session.id },
          action: 'console.signed_in',
          resourceType: 'console_session',
          resourceIds: [session.id],
          details: { link_id: redeemed.id, mode: redeemed.livemode ? 'live' : 'test', expires_at: session.expiresAt.toISOString() },
        },
        tx,
      );
      return redeemed;
    });
    if (!link) return { ok: false, reason: await this.whyRefused(token, now) };
    this.logger.log({ org_id: link.orgId, session_id: session.id }, 'console session started');
    const { id, expiresAt } = session;
    return { ok: true, secret, session: { id, orgId: link.orgId, livemode: link.livemode, expiresAt, csrfToken: csrfTokenOf(secret) } };
  }

  /** The live session a cookie's value names, or null (none, malformed, ended, signed out). */
  async authenticate(secret: string | undefined): Promise<ConsoleSession | null> {
    if (secret === undefined || !isSessionSecret(secret)) return null;
    const row = await this.repo.findSession(sha256(secret));
    if (!row || row.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    return { id: row.id, orgId: row.orgId, livemode: row.livemode, expiresAt: row.expiresAt, csrfToken: csrfTokenOf(secret) };
  }

  /** "Sign out": the session ends in every process at once (it is gone from the database). */
  async signOut(session: ConsoleSession): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Signed out twice (two tabs): the second finds nothing to end and records nothing.
      if (!(await this.repo.deleteSession(session.id, tx))) return;
      await this.audit.record(
        {
          orgId: session.orgId,
          actor: { type: 'console_session', id: session.id },
          action: 'console.signed_out',
          resourceType: 'console_session',
          resourceIds: [session.id],
        },
        tx,
      );
    });
  }

  private async whyRefused(token: string, now: Date): Promise<'unknown' | 'used' | 'expired'> {
    const link = await this.repo.findLink(sha256(token));
    if (!link) return 'unknown';
    if (link.usedAt) return 'used';
    return link.expiresAt.getTime() <= now.getTime() ? 'expired' : 'used';
  }
}
