import { KernelError } from './error-codes.js';

/**
 * A dashboard action cannot be done as asked (the CLI is the dashboard's
 * stand-in): a field's value is wrong, a limit is reached, or the thing it
 * names does not exist. Services name the domain field (`url`, `expiresAt`,
 * `permissionSet`); only the CLI knows which flag set it and words the
 * message with that flag (src/cli/failures.ts).
 */
export class InvalidInputError extends KernelError {
  readonly code = 'invalid_request';
  constructor(
    /** The domain field at fault, or null when the refusal is not about one field. */
    readonly field: string | null,
    /** What is wrong, worded to follow the field's name ("must be an https URL"), or the whole sentence without a field. */
    readonly reason: string,
  ) {
    super(field ? `${field}${reason.startsWith(':') ? '' : ' '}${reason}` : reason);
  }
}
