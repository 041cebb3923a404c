import { errorsOf, type ErrorCodes } from '../common/errors/domain-error.js';
import { problemExample } from '../common/http/problem.schema.js';

/** The receptionist context's problem codes (never renamed: integrators branch on them), with their titles and HTTP answers. */
export const RECEPTIONIST_ERRORS = {
  not_published: { title: 'The receptionist settings have never been published.', status: 409 },
} as const satisfies ErrorCodes;

const ReceptionistError = errorsOf(RECEPTIONIST_ERRORS);

/** The receptionist settings were never published. */
export class NotPublishedError extends ReceptionistError {
  readonly code = 'not_published';
  constructor(detail = 'The receptionist settings have never been published; publish them in the dashboard first.') {
    super(detail);
  }
}

/** The 409's example, for the document. */
export const NOT_PUBLISHED_EXAMPLE = problemExample(
  RECEPTIONIST_ERRORS,
  'not_published',
  'The receptionist settings have never been published.',
);
