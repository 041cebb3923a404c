import { createHash, timingSafeEqual } from 'node:crypto';
import { NotFoundError, UnauthorizedError } from '../common/errors/problems.js';
import type { AppConfig } from '../config/app-config.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** A shared operator token (not an API key), compared in constant time; `name` is the variable that sets it. */
export function requireBearerToken(expected: string, header: string | undefined, name: string): void {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  if (!timingSafeEqual(digest(given), digest(expected))) throw new UnauthorizedError(`Send ${name} as a bearer token.`);
}

/** The internal tree does not exist unless INTERNAL_API_TOKEN is set. */
export function checkInternalToken(config: AppConfig, header: string | undefined): void {
  const token = config.internalApiToken;
  if (!token) throw new NotFoundError('The endpoint');
  requireBearerToken(token, header, 'INTERNAL_API_TOKEN');
}
