import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { durationText } from '../../common/duration-text.js';
import { ApiConflictOrKeyInUse, Problem, problemExample } from '../../common/http/openapi.decorators.js';
import { FAILING_DISABLE_AFTER_MS } from '../delivery-rules.js';
import { WEBHOOKS_ERRORS } from '../webhooks.errors.js';

/** 409 `endpoint_disabled` on test and redeliver. */
@ApiSchema({ description: '409 `endpoint_disabled`: the webhook endpoint is turned off; `disabled_reason` says why.' })
export class EndpointDisabledProblem extends Problem {
  @ApiProperty({
    type: 'string',
    nullable: true,
    enum: ['owner', 'failing', 'gone'],
    description: `Why the endpoint is off: owner (turned off in the dashboard), failing (no success for ${durationText(FAILING_DISABLE_AFTER_MS, 'day')}), gone (it answered 410).`,
    example: 'owner',
  })
  disabled_reason: string | null;
}

const ENDPOINT_DISABLED_EXAMPLE = problemExample(WEBHOOKS_ERRORS, 'endpoint_disabled', 'The webhook endpoint is turned off.', {
  disabled_reason: 'owner',
});

/** 409 on test and redeliver: `endpoint_disabled` (the body names why the endpoint is off), or `idempotency_key_in_use`. */
export const ApiEndpointDisabled = () =>
  ApiConflictOrKeyInUse('The endpoint is turned off (`endpoint_disabled`); `disabled_reason` says why.', EndpointDisabledProblem, {
    code: 'endpoint_disabled',
    summary: 'The endpoint is turned off',
    value: ENDPOINT_DISABLED_EXAMPLE,
  });
