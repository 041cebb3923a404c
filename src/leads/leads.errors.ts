import { errorsOf, type ErrorCodes } from '../common/errors/domain-error.js';

/** The leads context's problem codes (never renamed: integrators branch on them), with their titles and HTTP answers. */
export const LEADS_ERRORS = {
  status_conflict: { title: 'The lead changed since it was read.', status: 409 },
} as const satisfies ErrorCodes;

const LeadsError = errorsOf(LEADS_ERRORS);

/** The lead is not at the expected status, or changed while the request was handled. */
export class StatusConflictError extends LeadsError {
  readonly code = 'status_conflict';
}
