import { createHash, createHmac, randomBytes } from 'node:crypto';

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
 * The session's CSRF secret, from which @fastify/csrf-protection makes each form's token and checks it: derived from
 * the session's id (which only the session's browser holds, in an HttpOnly cookie), so it is the session's alone,
 * needs no storage, and every process derives the same one.
 */
export const csrfSecretOf = (sessionSecret: string): string =>
  createHmac('sha256', sessionSecret).update('console csrf v1').digest('base64url');

/**
 * The session cookie (set and cleared through @fastify/cookie): HttpOnly (no script reads it), SameSite=Strict (no
 * other site's page sends it), scoped to the console's path, Secure when the service is served over https.
 */
export const sessionCookieOptions = (secure: boolean) => ({ path: CONSOLE_PATH, httpOnly: true, sameSite: 'strict', secure }) as const;
