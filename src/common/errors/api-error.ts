/**
 * The problem codes of the API. `code` is the stable, machine-readable
 * contract; `title` and `detail` are for people.
 */
export const ERROR_CODES = {
  invalid_request: 'The request is not valid.',
  unauthorized: 'Missing or unusable API key.',
  insufficient_scope: 'The API key lacks the scope this endpoint needs.',
  not_found: 'Not found.',
  method_not_allowed: 'Method not allowed.',
  not_published: 'The receptionist settings have never been published.',
  status_conflict: 'The lead changed since it was read.',
  endpoint_disabled: 'The webhook endpoint is turned off.',
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'The request body has the wrong content type.',
  rate_limited: 'Too many requests.',
  service_unavailable: 'The service is temporarily unavailable.',
  internal_error: 'Internal error.',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Base of the typed problems in `problems.ts` (one class per code). The one
 * exception filter turns any of them into application/problem+json.
 */
export abstract class ApiError extends Error {
  abstract readonly status: number;
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
    return ERROR_CODES[this.code];
  }

  /** The same problem with one more response header (e.g. `Connection: close` after a refused upload). */
  withHeader(name: string, value: string): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    return Object.assign(copy, this, { headers: { ...this.headers, [name]: value } });
  }
}
