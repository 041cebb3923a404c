import { Injectable } from '@nestjs/common';
import { Database } from '../database/sql.js';
import { createHash, randomBytes } from 'node:crypto';
import { AuditService } from '../audit/index.js';
import { ApiKeyService } from '../auth/index.js';
import { CallsService } from '../calls/index.js';
import { Clock } from '../common/clock.js';
import { turnOf, WriteTurns } from '../common/write-turns.js';
import { NotFoundError } from '../common/errors/problems.js';
import { AppConfig } from '../config/app-config.js';
import { RecordingsRepository } from './recordings.repository.js';
import { rangeDetails, type Playback, type RangeRequest } from './recording-model.js';
import { RecordingsService } from './recordings.service.js';
import { LINK_LIFETIME_MS } from './recording-rules.js';

const TOKEN_BYTES = 32;
/** base64url of 32 bytes, unpadded. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

export interface CreatedLink {
  callId: string;
  url: string;
  expiresAt: Date;
}

/**
 * One-hour playback links. The token (32 random bytes, base64url) is a
 * credential: it is returned once inside the url and otherwise exists only as
 * its SHA-256 hash. It is never logged, audited or echoed in an error.
 */
@Injectable()
export class RecordingLinksService {
  constructor(
    private readonly recordings: RecordingsService,
    private readonly repo: RecordingsRepository,
    private readonly calls: CallsService,
    private readonly keys: ApiKeyService,
    private readonly audit: AuditService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly db: Database,
    private readonly turns: WriteTurns,
  ) {}

  /**
   * A new link to the call's recording, created by the calling key (404: no such call, or no recording); after this
   * process's earlier writers of the call, since it locks the recording's row.
   */
  async create(principal: { orgId: string; keyId: string; livemode: boolean }, callId: string): Promise<CreatedLink> {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const createdAt = this.clock.now();
    const expiresAt = new Date(createdAt.getTime() + LINK_LIFETIME_MS);
    await this.turns.run(turnOf.call(principal.orgId, callId), () => this.insertLink(principal, callId, token, createdAt, expiresAt));
    return { callId, url: `${this.config.baseUrl}/v1/recordings/${token}`, expiresAt };
  }

  private insertLink(
    principal: { orgId: string; keyId: string; livemode: boolean },
    callId: string,
    token: string,
    createdAt: Date,
    expiresAt: Date,
  ): Promise<void> {
    return this.db.transaction(async (tx) => {
      await this.calls.requireCallIn(tx, principal.orgId, callId, principal.livemode);
      const recording = await this.repo.lockForLink(tx, principal.orgId, callId);
      if (!recording) throw new NotFoundError('The recording of this call');
      await this.repo.deleteExpiredLinks(tx, principal.orgId, createdAt);
      const linkId = await this.repo.insertLink(tx, {
        orgId: principal.orgId,
        recordingId: recording.id,
        callId,
        tokenHash: hashToken(token),
        createdByKeyId: principal.keyId,
        createdAt,
        expiresAt,
      });
      await this.audit.record(
        {
          orgId: principal.orgId,
          actor: { type: 'api_key', id: principal.keyId },
          action: 'recording_link.created',
          resourceType: 'recording_link',
          resourceIds: [linkId],
          details: { call_id: callId, expires_at: expiresAt.toISOString() },
        },
        tx,
      );
    });
  }

  /**
   * GET /v1/recordings/{token}: 404 alike for a malformed, unknown or expired
   * token, a revoked or expired creating key, and a removed recording. Each
   * start of playback (the response begins at byte 0) is audited with the
   * link's id as the actor.
   */
  async open(token: string, req: RangeRequest): Promise<Playback> {
    const gone = () => new NotFoundError('The recording link');
    if (!TOKEN_FORMAT.test(token)) throw gone();
    const link = await this.repo.findLinkTarget(hashToken(token));
    if (!link || link.expiresAt.getTime() <= this.clock.now().getTime()) throw gone();
    if (!(await this.keys.isActive(link.createdByKeyId))) throw gone();
    const playback = await this.recordings.openPlayback(link.storageKey, req);
    if (!playback) throw gone();
    if ((playback.range?.start ?? 0) === 0) {
      await this.recordings.auditOrClose(playback, {
        orgId: link.orgId,
        actor: { type: 'recording_link', id: link.linkId },
        action: 'recording.played',
        resourceType: 'call',
        resourceIds: [link.callId],
        details: { link_created_by_key_id: link.createdByKeyId, ...rangeDetails(playback) },
      });
    }
    return playback;
  }
}
