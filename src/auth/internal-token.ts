import { createHash, timingSafeEqual } from 'node:crypto';
import { NotFoundError, UnauthorizedError } from '../common/errors/problems.js';
import type { AppConfig } from '../config/app-config.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The internal tree does not exist unless INTERNAL_API_TOKEN is set. */
export function checkInternalToken(config: AppConfig, header: string | undefined): void {
  const token = config.internalApiToken;
  if (!token) throw new NotFoundError('The endpoint');
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  if (!timingSafeEqual(digest(given), digest(token))) throw new UnauthorizedError('Send INTERNAL_API_TOKEN as a bearer token.');
}
