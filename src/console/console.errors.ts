import { errorsOf, type ErrorCodes } from '../common/errors/domain-error.js';

/**
 * The console's problem codes (never renamed: its pages and tests read them), with their titles and HTTP answers.
 * `csrf_refused` is the kernel's: the CSRF plugin's errors are mapped where Fastify's are (framework-errors.ts).
 */
export const CONSOLE_ERRORS = {
  console_sign_in_required: { title: 'Sign in to the console through a new link.', status: 401 },
  console_read_only: { title: 'This console session can look but not change anything.', status: 403 },
} as const satisfies ErrorCodes;

const ConsoleError = errorsOf(CONSOLE_ERRORS);

/** A console page without a live console session (none, ended, signed out): sign in through a new link. */
export class ConsoleSignInRequiredError extends ConsoleError {
  readonly code = 'console_sign_in_required';
  constructor(detail = 'Your console session has ended or was never started. Ask for a new console link.') {
    super(detail);
  }
}

/** A state-changing request of a read-only console session (`console link --read-only`): it may look, not change. */
export class ConsoleReadOnlyError extends ConsoleError {
  readonly code = 'console_read_only';
  constructor(detail = 'This console session is read-only: it shows everything and changes nothing; nothing was changed.') {
    super(detail);
  }
}
