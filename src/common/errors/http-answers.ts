import type { DomainError } from './domain-error.js';

/** The status of a refusal: its code's, from the table that declares it; an undeclared code is a 500. */
export function httpStatus(e: DomainError): number {
  return e.answer?.status ?? 500;
}

/** The response headers of a refusal: its code's, then the ones the raising stage added. */
export function httpHeaders(e: DomainError): Record<string, string> {
  return { ...e.answer?.headers?.(e), ...e.headers };
}
