import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/**
 * What the service refuses, wherever it is called from: a public `code`
 * (error-codes.ts), a `detail` for people and the extra members of the answer
 * (`param`, `errors`, `lead`, ...). No HTTP status: the HTTP filter maps the
 * code to one (http-answers.ts), the CLI to its message and exit code
 * (src/cli/failures.ts). `headers` are set only by the HTTP stages that raise
 * a refusal themselves (Allow, Connection: close, the rate limit's).
 */
export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;

  constructor(
    readonly detail: string,
    /** Extra members of the problem document (e.g. `param`, `lead`). */
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.name = new.target.name;
  }

  get title(): string {
    return ERROR_CODES[this.code] ?? ERROR_CODES.internal_error;
  }

  /** The same refusal with one more response header (e.g. `Connection: close` after a refused upload). */
  withHeader(name: string, value: string): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    return Object.assign(copy, this, { headers: { ...this.headers, [name]: value } });
  }
}
