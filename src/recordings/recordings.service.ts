import { Inject, Injectable, Logger } from '@nestjs/common';
import { Database } from '../database/sql.js';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { AuditService, type AuditActor } from '../audit/index.js';
import { CallsService } from '../calls/index.js';
import { Clock } from '../common/clock.js';
import { turnOf, WriteTurns } from '../common/write-turns.js';
import { NotFoundError } from '../common/errors/problems.js';
import { AppConfig } from '../config/app-config.js';
import { parseRange } from './byte-range.js';
import { RecordingIntake, recordingTooLarge } from './recording-intake.js';
import { RecordingsRepository } from './recordings.repository.js';
import { RECORDING_STORE, type RecordingStore } from './store/recording-store.js';
import {
  rangeDetails,
  type Playback,
  type RangeRequest,
  type RecordingSource,
  type RemovedRecordingSummary,
  type StoredRecordingSummary,
} from './recording-model.js';
import { isUuid } from '../common/ids.js';

/**
 * Stores, removes and serves call recordings. Audio goes through the
 * RecordingStore as a stream end to end: an upload is checked and hashed on
 * its way to the store, a download is read from an open handle, so memory
 * stays flat whatever the file size.
 */
@Injectable()
export class RecordingsService {
  private readonly logger = new Logger(RecordingsService.name);

  constructor(
    @Inject(RECORDING_STORE) private readonly objects: RecordingStore,
    private readonly recordings: RecordingsRepository,
    private readonly calls: CallsService,
    private readonly audit: AuditService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly db: Database,
    private readonly turns: WriteTurns,
  ) {}

  get maxBytes(): number {
    return this.config.recordingMaxBytes;
  }

  /**
   * Stores `body` as the call's recording (replacing any earlier one) and
   * sets has_recording. Refuses, writing nothing, a body that is not Ogg
   * (415) or exceeds RECORDING_MAX_BYTES (413); 404 for an unknown call.
   * `declaredLength` (a Content-Length) lets an oversized upload be refused
   * before any byte is read.
   */
  async store(
    orgId: string,
    callId: string,
    body: Readable,
    opts: { via: RecordingSource; declaredLength?: number },
  ): Promise<StoredRecordingSummary> {
    await this.requireCall(orgId, callId, opts.via);
    if (opts.declaredLength !== undefined && opts.declaredLength > this.maxBytes) throw recordingTooLarge(this.maxBytes);
    const intake = new RecordingIntake(this.maxBytes);
    // A refusal can happen before the store has attached to the intake; it still reaches us through
    // put() (a stream that has already failed fails the store's pipeline), so this only keeps it from
    // being an unhandled 'error' event.
    intake.on('error', () => undefined);
    const key = `${orgId}/${randomUUID()}.ogg`;
    const detach = feed(body, intake);
    try {
      await this.objects.put(key, intake);
    } finally {
      detach();
    }
    const sizeBytes = intake.bytes;
    const sha256 = intake.digest();
    let previousKey: string | null;
    try {
      // After this process's earlier writers of the call (ingestion, another upload), each of which holds its row.
      previousKey = await this.turns.run(turnOf.call(orgId, callId), () =>
        this.db.transaction(async (tx) => {
          await this.calls.requireCallIn(tx, orgId, callId, modeOf(opts.via));
          const row = await this.recordings.upsert(tx, { orgId, callId, storageKey: key, sizeBytes, sha256, now: this.clock.now() });
          await this.calls.setHasRecording(tx, orgId, callId, true);
          await this.audit.record(
            {
              orgId,
              actor: { type: 'system', id: opts.via },
              action: 'recording.stored',
              resourceType: 'call',
              resourceIds: [callId],
              details: { size_bytes: sizeBytes, replaced: row.previousKey !== null },
            },
            tx,
          );
          return row.previousKey;
        }),
      );
    } catch (err) {
      await this.discard(key);
      throw err;
    }
    // The replaced object is left to the sweep (RecordingSweeper: no row points to it, older than the grace): a
    // reader that resolved its key just before this commit still streams a whole recording instead of a 404, or a
    // 500 when S3 lost the object between its HEAD and its GET (found by bench/chaos.bench.mjs).
    return {
      org_id: orgId,
      call_id: callId,
      has_recording: true,
      size_bytes: sizeBytes,
      sha256: sha256.toString('hex'),
      replaced: previousKey !== null,
    };
  }

  /** The same as `store`, from a file on disk (the CLI and the demo data). */
  async storeFromFile(orgId: string, callId: string, path: string, via: RecordingSource = 'demo'): Promise<StoredRecordingSummary> {
    const file = createReadStream(path);
    try {
      return await this.store(orgId, callId, file, { via });
    } finally {
      file.destroy();
    }
  }

  /** Removes the call's recording: has_recording turns false and every link to it stops. Idempotent. */
  async remove(orgId: string, callId: string, via: RecordingSource): Promise<RemovedRecordingSummary> {
    await this.requireCall(orgId, callId, via);
    const key = await this.turns.run(turnOf.call(orgId, callId), () =>
      this.db.transaction(async (tx) => {
        await this.calls.requireCallIn(tx, orgId, callId, modeOf(via));
        const removedKey = await this.recordings.delete(tx, orgId, callId);
        await this.calls.setHasRecording(tx, orgId, callId, false);
        if (removedKey) {
          await this.audit.record(
            { orgId, actor: { type: 'system', id: via }, action: 'recording.removed', resourceType: 'call', resourceIds: [callId] },
            tx,
          );
        }
        return removedKey;
      }),
    );
    // After commit: a reader that already opened the file keeps its handle; new readers find no row.
    if (key) await this.discard(key);
    return { org_id: orgId, call_id: callId, has_recording: false, removed: key !== null };
  }

  /** GET /v1/calls/{call_id}/recording: the firm's call and its recording, or 404; every fetch is audited. */
  async openForKey(principal: { orgId: string; keyId: string; livemode: boolean }, callId: string, req: RangeRequest): Promise<Playback> {
    await this.calls.requireCall(principal.orgId, callId, principal.livemode);
    const row = await this.recordings.findByCall(principal.orgId, callId);
    if (!row) throw new NotFoundError('The recording of this call');
    const playback = await this.openPlayback(row.storageKey, req);
    if (!playback) throw new NotFoundError('The recording of this call');
    await this.auditOrClose(playback, {
      orgId: principal.orgId,
      actor: { type: 'api_key', id: principal.keyId },
      action: 'recording.fetched',
      resourceType: 'call',
      resourceIds: [callId],
      details: rangeDetails(playback),
    });
    return playback;
  }

  /** Opens a stored object and settles the Range to serve; null when the object is gone. */
  async openPlayback(storageKey: string, req: RangeRequest): Promise<Playback | null> {
    const object = await this.objects.open(storageKey);
    if (!object) return null;
    const etag = etagOf(storageKey);
    // If-Range with a validator other than ours (or a date: we send none) means "the whole file" (RFC 9110 13.1.5).
    const rangeApplies = req.ifRange === undefined || req.ifRange.trim() === etag;
    return { object, range: rangeApplies ? parseRange(req.range, object.size) : null, etag };
  }

  /** Records the audit entry before a byte is served; releases the file when that fails. */
  async auditOrClose(
    playback: Playback,
    entry: {
      orgId: string;
      actor: AuditActor;
      action: string;
      resourceType: string;
      resourceIds: string[];
      details?: Record<string, unknown>;
    },
  ): Promise<void> {
    try {
      await this.audit.recordStandalone(entry);
    } catch (err) {
      await playback.object.close();
      throw err;
    }
  }

  /** The call a write names, by firm and id, in the mode its source may write (modeOf). */
  private async requireCall(orgId: string, callId: string, via: RecordingSource): Promise<void> {
    // Not a firm id at all: the same 404 as any unknown call (and no invalid-uuid error from PostgreSQL).
    if (!isUuid(orgId)) throw new NotFoundError('The call');
    await this.calls.requireCall(orgId, callId, modeOf(via));
  }

  private async discard(key: string): Promise<void> {
    try {
      await this.objects.remove(key);
    } catch (err) {
      this.logger.warn({ err: String(err), storage_key: key }, 'could not remove a stored recording object');
    }
  }
}

/**
 * The mode of the calls a source may write a recording of: the pipeline's routes write live calls only, as its call
 * document route does (a test-mode call answers 404 there, like an unknown one); the owner's CLI, the demo and the
 * test helpers name a call of either mode.
 */
function modeOf(via: RecordingSource): boolean | null {
  return via === 'internal_api' ? true : null;
}

/** Strong validator: a storage key is never reused, so its id names exactly these bytes. */
function etagOf(storageKey: string): string {
  const name = storageKey.slice(storageKey.lastIndexOf('/') + 1).replace(/\.ogg$/, '');
  return `"${name}"`;
}

/**
 * Pipes the source into the intake without handing it to `pipeline`, which
 * would destroy an HTTP request (and its socket) on a refusal before the
 * answer is sent. A source that fails or closes early fails the intake.
 * Returns the function that detaches the two again.
 */
function feed(source: Readable, intake: RecordingIntake): () => void {
  const onError = (err: Error) => intake.destroy(err);
  const onClose = () => {
    if (!source.readableEnded) intake.destroy(new Error('the upload ended before its end'));
  };
  source.on('error', onError);
  source.on('close', onClose);
  source.pipe(intake);
  return () => {
    source.off('error', onError);
    source.off('close', onClose);
    source.unpipe(intake);
  };
}
