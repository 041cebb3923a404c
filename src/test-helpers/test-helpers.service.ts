import { Injectable } from '@nestjs/common';
import { CallsService } from '../calls/index.js';
import { Clock } from '../common/clock.js';
import { InvalidRequestError, NotFoundError } from '../common/errors/problems.js';
import type { ApiPrincipal } from '../common/http/principal.js';
import { newCallId } from '../common/ids.js';
import { DocumentInvalidError } from '../common/validation/validate-document.js';
import { demoRecordingPath, simulatedCallDocument, type SimulatedCallPlan } from '../demo/index.js';
import { IngestionService, type IngestResult } from '../ingestion/index.js';
import { RecordingsService } from '../recordings/index.js';
import type { ReprocessCallDto, SimulateCallDto, SimulatedCallDto } from './dto/simulate-call.dto.js';
import { fictionalNumber, isCategory, isOutcome, planSimulatedCall } from './simulated-call-plan.js';
import { TestHelperBudget } from './test-helper-budget.js';

/**
 * Test mode's stand-in for the receptionist: a call as the pipeline would
 * hand it over (the demo firm's generator), written through the pipeline's own
 * port (IngestionService) as test data, so the same validation, writes and
 * events (call.completed, lead.created, fanned out to the firm's test
 * endpoints) follow. Only test keys reach it (the route's TEST_KEY access),
 * within the key's budget (test-helper-budget.ts).
 */
@Injectable()
export class TestHelpersService {
  constructor(
    private readonly ingestion: IngestionService,
    private readonly recordings: RecordingsService,
    private readonly calls: CallsService,
    private readonly clock: Clock,
    private readonly budget: TestHelperBudget,
  ) {}

  /** POST /v1/test-helpers/calls: one of the key's test calls of the hour, counted once the call is known to be valid. */
  simulate(principal: ApiPrincipal, body: SimulateCallDto): Promise<SimulatedCallDto> {
    return this.budget.run(principal.keyId, () => this.simulateNow(principal, body));
  }

  /** POST /v1/test-helpers/calls/{call_id}/reprocess (creates no call: only the requests under way count). */
  reprocess(principal: ApiPrincipal, callId: string, body: ReprocessCallDto): Promise<SimulatedCallDto> {
    return this.budget.run(principal.keyId, () => this.reprocessNow(principal, callId, body));
  }

  private async simulateNow(principal: ApiPrincipal, body: SimulateCallDto): Promise<SimulatedCallDto> {
    const now = this.clock.now();
    const { plan, recording } = planSimulatedCall(body, newCallId(now), now);
    const finished = simulatedCallDocument(plan);
    // Refused before anything is written: a combination the spec forbids leaves no call behind.
    try {
      this.ingestion.validate(finished, plan.callId);
    } catch (e) {
      throw asRefusal(e);
    }
    await this.budget.createCall(principal.keyId);
    if (recording) {
      // The pipeline's order: the call while it is processed, its recording, then the finished call, whose
      // call.completed says has_recording true.
      await this.ingest(principal, simulatedCallDocument({ ...plan, lead: false, processingComplete: false }), plan.callId);
      const path = demoRecordingPath('en', plan.category === 'new_injury_lead' ? 1 : 0);
      await this.recordings.storeFromFile(principal.orgId, plan.callId, path, 'test_helper');
    }
    return answer(await this.ingest(principal, finished, plan.callId));
  }

  /**
   * The same call told again (the generator draws from the call id), with or
   * without its lead. The call is looked up as the key sees it, so another
   * mode's or firm's id is a 404.
   */
  private async reprocessNow(principal: ApiPrincipal, callId: string, body: ReprocessCallDto): Promise<SimulatedCallDto> {
    const call = await this.calls.findForKey(principal, callId);
    if (!call) throw new NotFoundError('The call');
    const plan: SimulatedCallPlan = {
      callId: call.call_id,
      startedAt: call.started_at ? new Date(call.started_at) : null,
      now: this.clock.now(),
      answered: call.answered ?? false,
      category: isCategory(call.category) ? call.category : null,
      outcome: isOutcome(call.outcome) ? call.outcome : 'not_attempted',
      lead: body.lead ?? call.lead_id !== null,
      callerNumber: call.from ?? fictionalNumber(call.call_id),
      processingComplete: true,
    };
    return answer(await this.ingest(principal, simulatedCallDocument(plan), callId));
  }

  private async ingest(principal: ApiPrincipal, document: Record<string, unknown>, callId: string): Promise<IngestResult> {
    try {
      return await this.ingestion.ingest(principal.orgId, document, callId, { livemode: false });
    } catch (e) {
      throw asRefusal(e);
    }
  }
}

const answer = (r: IngestResult): SimulatedCallDto => ({ call_id: r.call_id, lead_id: r.lead_id });

/** A document the spec's rules refuse is a 400 naming the request member at fault (the document's members have the same names). */
function asRefusal(e: unknown): unknown {
  if (!(e instanceof DocumentInvalidError)) return e;
  const [first] = e.problems;
  return new InvalidRequestError(`${first.path} ${first.message}.`, first.path, {
    errors: e.problems.map((p) => ({ param: p.path, message: p.message })),
  });
}
