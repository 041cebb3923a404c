import { errorsOf, type ErrorCodes } from '../common/errors/domain-error.js';

/** The webhooks context's problem codes (never renamed: integrators branch on them), with their titles and HTTP answers. */
export const WEBHOOKS_ERRORS = {
  endpoint_disabled: { title: 'The webhook endpoint is turned off.', status: 409 },
} as const satisfies ErrorCodes;

const WebhooksError = errorsOf(WEBHOOKS_ERRORS);

/** The webhook endpoint is turned off: nothing is sent to it (test, redeliver, the console's send). */
export class EndpointDisabledError extends WebhooksError {
  readonly code = 'endpoint_disabled';
}
