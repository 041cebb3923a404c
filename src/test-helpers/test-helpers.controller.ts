import { Body } from '@nestjs/common';
import { TEST_CALL_RETENTION_MS } from '../calls/index.js';
import { durationText } from '../common/duration-text.js';
import { ApiBody } from '@nestjs/swagger';
import { Endpoint, jsonBody, pathId, TEST_KEY } from '../common/http/access.decorators.js';
import { TaggedController } from '../common/http/openapi.decorators.js';
import { CurrentPrincipal, type ApiPrincipal } from '../common/http/principal.js';
import { PathParam } from '../common/http/route-input.js';
import { ReprocessCallDto, SimulateCallDto, SimulatedCallDto } from './dto/simulate-call.dto.js';
import { TEST_CALLS_PER_HOUR, TEST_HELPER_CONCURRENCY } from './test-helper-budget.js';
import { TestHelpersService } from './test-helpers.service.js';

/** A few short members: 16 KiB, the default of every JSON body, is ample. */
const HELPER_BODY_BYTES = 16 * 1024;

/** The budget both operations state (test-helper-budget.ts). */
const UNDER_WAY = `A test key may have ${TEST_HELPER_CONCURRENCY} test-helper requests under way at once (in each api process); more answer 429 \`rate_limited\` with \`Retry-After\`.`;
const TEST_DATA_KEPT = `Test calls are deleted ${durationText(TEST_CALL_RETENTION_MS, 'day')} after they were made, with their transcript, recording, links and lead.`;

const CALL_ID = pathId('The call', {
  description: 'A test-mode call, as POST /v1/test-helpers/calls returned it.',
  example: 'call_01jd5x8m3q7k2w9n4b6c8d0f2h',
});

@TaggedController('Test helpers', 'v1/test-helpers')
export class TestHelpersController {
  constructor(private readonly helpers: TestHelpersService) {}

  @Endpoint({
    method: 'POST',
    path: 'calls',
    access: TEST_KEY,
    body: jsonBody(HELPER_BODY_BYTES),
    op: {
      id: 'simulateCall',
      summary: 'Simulate a call in test mode',
      description:
        'Creates a realistic test-mode call as the receptionist would: summary, details, routing record, a transcript (intake; briefing and staff conversation when put through), a playable Ogg recording, and a lead with its intake when asked or when the category usually yields one. It goes through the same path as a real call: `call.completed` and, with a lead, `lead.created` are recorded and delivered to the firm’s test endpoints. An unanswered call cannot be put through, have a category or yield a lead (400 naming the member). ' +
        `Budget: a test key may create ${TEST_CALLS_PER_HOUR} test calls per hour (one more every ${3600 / TEST_CALLS_PER_HOUR} s once they are spent, counted across every api process); past it, 429 \`rate_limited\` with \`Retry-After\` (a refused call is not created, and a call the request's 400 refuses is not counted). ${UNDER_WAY} ${TEST_DATA_KEPT}`,
    },
    ok: { type: SimulatedCallDto, description: 'The call was created; read it with a test key.' },
    problems: [400, 413, 415],
    doc: [ApiBody({ type: SimulateCallDto, required: false, description: 'Optional; every member optional.' })],
  })
  simulate(@CurrentPrincipal() principal: ApiPrincipal, @Body() body: SimulateCallDto): Promise<SimulatedCallDto> {
    return this.helpers.simulate(principal, body);
  }

  @Endpoint({
    method: 'POST',
    path: 'calls/:call_id/reprocess',
    access: TEST_KEY,
    body: jsonBody(HELPER_BODY_BYTES),
    params: { call_id: CALL_ID },
    status: 200,
    op: {
      id: 'reprocessCall',
      summary: 'Re-process a test-mode call',
      description:
        'Re-processes the call as the pipeline can: the call is written again, so its `updated_at` (and its lead’s) moves. With `lead: false` the re-processing finds no lead: the call’s `lead_id` turns null and the lead stays readable. With `lead: true` on a call without one, a lead is created and `lead.created` recorded. `call.completed` is recorded once per call, so a re-processing of a finished call records no new one. A live call’s id answers 404 like an unknown one. ' +
        `${UNDER_WAY} ${TEST_DATA_KEPT}`,
    },
    ok: { type: SimulatedCallDto, description: 'The call after the re-processing.' },
    problems: [400, 404, 413, 415],
    notFound: 'The call was not found.',
    doc: [ApiBody({ type: ReprocessCallDto, required: false, description: 'Optional.' })],
  })
  reprocess(
    @CurrentPrincipal() principal: ApiPrincipal,
    @PathParam('call_id') callId: string,
    @Body() body: ReprocessCallDto,
  ): Promise<SimulatedCallDto> {
    return this.helpers.reprocess(principal, callId, body);
  }
}
