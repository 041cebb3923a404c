import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Where the console lives: its pages, its cookie's Path. */
export const CONSOLE_PATH = '/console';
export const LINK_LIFETIME_MS = 15 * 60_000;
export const SESSION_LIFETIME_MS = 12 * 3600_000;
export const SESSION_COOKIE = 'console_session';

/**
 * Both credentials are 32 random bytes (base64url) behind a prefix that says what they are, so a leaked one is
 * recognised (the run-wide log scan, test/support/secret-shapes.json, looks for both).
 */
export const LINK_PREFIX = 'console_link_';
export const SESSION_PREFIX = 'console_session_';
const LINK_SHAPE = /^console_link_[A-Za-z0-9_-]{43}$/;
const SESSION_SHAPE = /^console_session_[A-Za-z0-9_-]{43}$/;

export const newLinkToken = (): string => LINK_PREFIX + randomBytes(32).toString('base64url');
export const newSessionSecret = (): string => SESSION_PREFIX + randomBytes(32).toString('base64url');
export const isLinkToken = (text: string): boolean => LINK_SHAPE.test(text);
export const isSessionSecret = (text: string): boolean => SESSION_SHAPE.test(text);

/** What is stored of a link token or a session id: its SHA-256, never the text. */
export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * The session's CSRF token: derived from the session's secret (which only the session's browser holds, in an
 * HttpOnly cookie), so it is bound to the session, needs no storage, and no other session's token passes.
 */
export const csrfTokenOf = (sessionSecret: string): string =>
  createHmac('sha256', sessionSecret).update('console csrf v1').digest('base64url');

/** Constant-time comparison of two tokens of any length. */
export function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The console session cookie's value in a Cookie header (the first one named so), or undefined. */
export function sessionCookieOf(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), scoped to the
 * console's path, Secure when the service is served over https. An empty value with Max-Age=0 removes it.
 */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [`${SESSION_COOKIE}=${value}`, `Path=${CONSOLE_PATH}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict']
    .concat(secure ? ['Secure'] : [])
    .join('; ');
}
