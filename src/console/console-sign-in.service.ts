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
  csrfSecretOf,
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

const SEEN_EVERY_MS = 60_000;

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

  /**
   * A link that signs one browser in to the firm's console in this mode, once, within 15 minutes; `readOnly`: its
   * session sees everything and changes nothing.
   */
  async createLink(orgIdOrSlug: string, livemode: boolean, readOnly = false): Promise<ConsoleLink> {
    const org = await this.account.resolveOrg(orgIdOrSlug);
    const token = newLinkToken();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + LINK_LIFETIME_MS);
    const id = randomUUID();
    // A link is kept as long as a session it opened could live; older ones go (and their sessions, long ended).
    const expiredBefore = new Date(now.getTime() - SESSION_LIFETIME_MS);
    await this.db.transaction(async (tx) => {
      await this.repo.insertLink(
        { id, orgId: org.id, livemode, readOnly, tokenHash: sha256(token), createdAt: now, expiresAt },
        expiredBefore,
        tx,
      );
      await this.audit.record(
        {
          orgId: org.id,
          actor: { type: 'owner', id: null },
          action: 'console_link.created',
          resourceType: 'console_link',
          resourceIds: [id],
          details: { mode: livemode ? 'live' : 'test', read_only: readOnly, expires_at: expiresAt.toISOString() },
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
      lastSeenAt: now,
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
          details: {
            link_id: redeemed.id,
            mode: redeemed.livemode ? 'live' : 'test',
            read_only: redeemed.readOnly,
            expires_at: session.expiresAt.toISOString(),
          },
        },
        tx,
      );
      return redeemed;
    });
    if (!link) return { ok: false, reason: await this.whyRefused(token, now) };
    this.logger.log({ org_id: link.orgId, session_id: session.id }, 'console session started');
    const { id, expiresAt } = session;
    const { orgId, livemode, readOnly } = link;
    return { ok: true, secret, session: { id, orgId, livemode, expiresAt, readOnly, csrfSecret: csrfSecretOf(secret) } };
  }

  /** The live session a cookie's value names, or null (none, malformed, ended, signed out, revoked). */
  async authenticate(secret: string | undefined): Promise<ConsoleSession | null> {
    if (secret === undefined || !isSessionSecret(secret)) return null;
    const row = await this.repo.findSession(sha256(secret));
    const now = this.clock.now();
    if (!row || row.expiresAt.getTime() <= now.getTime()) return null;
    // `console sessions` shows when each was last seen, to the minute: at most one write a minute per session.
    if (now.getTime() - row.lastSeenAt.getTime() >= SEEN_EVERY_MS)
      await this.repo.touch(row.id, now, new Date(now.getTime() - SEEN_EVERY_MS));
    const { id, orgId, livemode, expiresAt, readOnly } = row;
    return { id, orgId, livemode, expiresAt, readOnly, csrfSecret: csrfSecretOf(secret) };
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
