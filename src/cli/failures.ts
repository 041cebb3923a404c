import { DomainError } from '../common/errors/domain-error.js';
import { ERROR_CODES, type ErrorCode } from '../common/errors/error-codes.js';
import { InvalidInputError } from '../common/errors/invalid-input.js';
import { DocumentInvalidError } from '../common/validation/validate-document.js';
import { ConfigError } from '../config/app-config.js';
import { CliError } from './command.js';

/** What the CLI prints after `error: ` (and in `--json`), and the process's exit code. */
export interface CliFailure {
  message: string;
  exitCode: number;
}

/** The flag that sets each domain field a service may refuse. */
const FLAGS: Record<string, string> = {
  name: 'name',
  permissionSet: 'set',
  expiresAt: 'expires-at',
  url: 'url',
  description: 'description',
  types: 'types',
};

/** A service's refusal in the operator's words: the field becomes the flag that set it ("--url must be an https URL"). */
function inputMessage(err: InvalidInputError): string {
  const flag = err.field === null ? undefined : FLAGS[err.field];
  if (flag === undefined) return err.message;
  return `--${flag}${err.reason.startsWith(':') ? '' : ' '}${err.reason}`;
}

function invalidRequest(err: DomainError): string {
  if (err instanceof InvalidInputError) return inputMessage(err);
  if (err instanceof DocumentInvalidError) return `invalid document: ${err.message}`;
  return err.detail;
}

const userError = (message: (err: DomainError) => string) => ({ exitCode: 1, message });
const detail = userError((err) => err.detail);

/**
 * The one map from a kernel problem code to the CLI's answer. Refusals are the operator's to fix: shown plainly,
 * exit 1. null: not the operator's doing (an outage, a bug): the generic failure, with the stack on stderr. A
 * context's own codes (`<context>.errors.ts`: a lead's status conflict, a turned-off endpoint, ...) are all refusals:
 * their detail, exit 1.
 */
export const CLI_FAILURES: Record<ErrorCode, { exitCode: number; message: (err: DomainError) => string } | null> = {
  invalid_request: userError(invalidRequest),
  unauthorized: detail,
  insufficient_scope: detail,
  test_mode_only: detail,
  not_found: detail,
  method_not_allowed: detail,
  idempotency_key_in_use: detail,
  idempotency_key_reused: detail,
  payload_too_large: detail,
  unsupported_media_type: detail,
  rate_limited: detail,
  csrf_refused: detail,
  service_unavailable: null,
  internal_error: null,
};

const isKernelCode = (err: DomainError): err is DomainError & { code: ErrorCode } =>
  Object.hasOwn(ERROR_CODES, err.code) && err.answer === ERROR_CODES[err.code as ErrorCode];

/** How the CLI answers an error, or null for the generic failure ("unexpected error"). */
export function cliFailure(err: unknown): CliFailure | null {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  if (err instanceof ConfigError) return { message: err.message, exitCode: 1 };
  if (!(err instanceof DomainError) || err.answer === undefined) return null;
  const row = isKernelCode(err) ? CLI_FAILURES[err.code] : detail;
  return row && { message: row.message(err), exitCode: row.exitCode };
}
