import { Injectable } from '@nestjs/common';
import { Database } from '../database/sql.js';
import { AccountService } from '../account/index.js';
import { CallsService, type IngestedCall } from '../calls/index.js';
import { InvalidRequestError, NotFoundError } from '../common/errors/problems.js';
import { newCallId, newLeadId } from '../common/ids.js';
import { DocumentInvalidError, validateDocument } from '../common/validation/validate-document.js';
import { turnOf, WriteTurns } from '../common/write-turns.js';
import { AppConfig } from '../config/app-config.js';
import { beginChange } from '../database/change-stamp.js';
import { EventsService } from '../events/index.js';
import { LeadWritesService, type LeadFromCall } from '../leads/index.js';
import { TranscriptsService, type PreparedTranscript } from '../transcripts/index.js';
import { ingestedCall, leadFromCall, tidy } from './call-document-normaliser.js';
import { crossFieldProblems } from './call-document-rules.js';
import { CALL_ID_PATTERN, CallDocument } from './dto/call-document.dto.js';

/** A document that passed validation, normalised and ready to write. */
export interface ValidatedCall {
  call: IngestedCall;
  transcript: PreparedTranscript | null;
  lead: LeadFromCall | null;
}

/** Which data a call is written to: live (the pipeline) or test (test helpers). Always given, never assumed. */
export interface IngestMode {
  livemode: boolean;
}

export interface IngestResult {
  call_id: string;
  /** created: first time this call_id was seen; reprocessed: it replaced an earlier version. */
  status: 'created' | 'reprocessed';
  lead_id: string | null;
  lead_created: boolean;
  completed_event: boolean;
}

/**
 * The receptionist pipeline's port. One call document, one transaction: the
 * call, its references, transcript and lead, the firm's first-call mark, and
 * the events the change causes (call.completed once processing is complete,
 * lead.created the first time the call yields a lead) commit together or not
 * at all. Reached by PUT /internal/v1/orgs/{org_id}/calls/{call_id} and by
 * `call ingest` on the CLI.
 */
@Injectable()
export class IngestionService {
  constructor(
    private readonly db: Database,
    private readonly account: AccountService,
    private readonly calls: CallsService,
    private readonly transcripts: TranscriptsService,
    private readonly leads: LeadWritesService,
    private readonly events: EventsService,
    private readonly config: AppConfig,
    private readonly turns: WriteTurns,
  ) {}

  /**
   * Validates the whole document (nothing is written when any member is
   * wrong; errors name the member's path). `callId` is the authoritative id
   * when given (the route's path); a document without call_id gets a new one.
   */
  validate(document: unknown, callId?: string, path = ''): ValidatedCall {
    let doc: CallDocument;
    try {
      doc = validateDocument(CallDocument, document, path);
    } catch (e) {
      throw e instanceof DocumentInvalidError ? new DocumentInvalidError(tidy(e.problems)) : e;
    }
    const at = (p: string) => (path ? `${path}.${p}` : p);
    const problems: { path: string; message: string }[] = [];
    if (callId !== undefined && doc.call_id !== undefined && doc.call_id !== callId) {
      problems.push({ path: at('call_id'), message: `must equal the call id in the path ("${callId}") when sent` });
    }
    const id = callId ?? doc.call_id ?? newCallId();
    if (!CALL_ID_PATTERN.test(id)) problems.push({ path: at('call_id'), message: 'must be 1 to 128 letters, digits, or _ . : -' });

    problems.push(...crossFieldProblems(doc).map((p) => ({ path: at(p.path), message: p.message })));
    if (problems.length) throw new DocumentInvalidError(problems);

    const transcript = this.transcripts.prepare(doc.transcript ?? null, at('transcript'));
    const call = ingestedCall(doc, id);
    return { call, transcript, lead: doc.lead ? leadFromCall(doc.lead, call) : null };
  }

  /**
   * PUT /internal/v1/orgs/{org_id}/calls/{call_id} (live), and test-mode calls (`livemode: false`) through the same
   * validation and writes. `callId` undefined: the document's call_id, or a new one.
   */
  async ingest(orgId: string, document: unknown, callId: string | undefined, mode: IngestMode): Promise<IngestResult> {
    await this.requireOrg(orgId);
    return this.write(orgId, this.validate(document, callId), mode.livemode);
  }

  /** CLI: every document is validated before the first is written; then one transaction per call. */
  async ingestMany(orgId: string, documents: unknown[], mode: IngestMode): Promise<IngestResult[]> {
    await this.requireOrg(orgId);
    const problems: { path: string; message: string }[] = [];
    const valid: ValidatedCall[] = [];
    documents.forEach((d, i) => {
      try {
        valid.push(this.validate(d, undefined, documents.length > 1 ? `[${i}]` : ''));
      } catch (e) {
        if (e instanceof DocumentInvalidError) problems.push(...e.problems);
        else throw e;
      }
    });
    if (problems.length) throw new DocumentInvalidError(problems);
    const results: IngestResult[] = [];
    for (const v of valid) results.push(await this.write(orgId, v, mode.livemode));
    return results;
  }

  /** Only a missing firm is a 404; any other failure (the database away) propagates as what it is. */
  private async requireOrg(orgId: string): Promise<void> {
    try {
      await this.account.getOrg(orgId);
    } catch (err) {
      if (err instanceof NotFoundError) throw new NotFoundError('The firm');
      throw err;
    }
  }

  /** One transaction, after this process's earlier writers of the call (the lock in it serialises other processes'). */
  private write(orgId: string, v: ValidatedCall, livemode: boolean): Promise<IngestResult> {
    return this.turns.run(turnOf.call(orgId, v.call.callId), () => this.writeNow(orgId, v, livemode));
  }

  private async writeNow(orgId: string, v: ValidatedCall, livemode: boolean): Promise<IngestResult> {
    const { call } = v;
    return this.db.transaction(async (tx) => {
      const before = await this.calls.lockForWrite(tx, orgId, call.callId);
      // A call never changes mode: its lead, transcript, recording and events were kept apart by it.
      if (before && before.livemode !== livemode) throw otherModeCall(call.callId, before.livemode);
      await beginChange(tx);
      // A call yields at most one lead, ever: a re-processing finds the same one again.
      const existingLeadId = await this.leads.findIdByCall(tx, orgId, call.callId);
      const leadId = v.lead ? (existingLeadId ?? newLeadId()) : null;
      // The call first (the lead row references it), already pointing at its lead.
      await this.calls.writeIngested(tx, orgId, call, leadId, livemode);
      let leadCreated = false;
      if (v.lead && leadId) {
        leadCreated = (await this.leads.upsertForCall(tx, orgId, leadId, existingLeadId !== null, v.lead, livemode)).created;
      } else if (existingLeadId) {
        await this.leads.detachFromCall(tx, orgId, call.callId);
      }
      await this.transcripts.replace(tx, orgId, call.callId, v.transcript);
      await this.account.markCallReceived(tx, orgId, call.startedAt);
      let completedEvent = false;
      if (call.processingComplete && !before?.completedEventAt) {
        await this.calls.markCompletedEvent(tx, orgId, call.callId);
        await this.events.record(tx, {
          orgId,
          livemode,
          type: 'call.completed',
          data: {
            call_id: call.callId,
            occurred_at: call.startedAt.toISOString(),
            answered: call.answered,
            duration_s: call.durationS,
            category: call.category,
            urgency: call.urgency,
            outcome: call.outcome,
            lead_id: leadId,
            has_recording: before?.hasRecording ?? false,
            url: `${this.config.baseUrl}/v1/calls/${encodeURIComponent(call.callId)}`,
            dashboard_url: this.config.dashboardUrl ? `${this.config.dashboardUrl}/calls/${encodeURIComponent(call.callId)}` : null,
          },
        });
        completedEvent = true;
      }
      return {
        call_id: call.callId,
        status: before ? 'reprocessed' : 'created',
        lead_id: leadId,
        lead_created: leadCreated,
        completed_event: completedEvent,
      };
    });
  }
}

function otherModeCall(callId: string, existingLive: boolean): InvalidRequestError {
  const mode = existingLive ? 'live' : 'test-mode';
  return new InvalidRequestError(
    `call_id "${callId}" is already a ${mode} call of this firm; a call keeps the mode it was first written in.`,
    'call_id',
  );
}
