import { InvalidInputError } from '../common/errors/invalid-input.js';
import { SUBSCRIBABLE_EVENT_TYPES } from '../events/index.js';
import { isLoopbackName, literalAddressAllowed } from './safe-target.js';

/** A receiver URL as the owner may add it: https (http only with private targets allowed), public, no credentials. */
export function checkEndpointUrl(raw: string, allowPrivate: boolean): string {
  let u: URL;
  try {
    u = new URL((raw ?? '').trim());
  } catch {
    throw new InvalidInputError('url', 'must be an absolute URL such as https://hooks.example.com/receptionist');
  }
  if (u.protocol !== 'https:' && !(allowPrivate && u.protocol === 'http:')) {
    throw new InvalidInputError(
      'url',
      allowPrivate ? 'must be an http or https URL' : 'must be an https URL (http:// needs WEBHOOK_ALLOW_PRIVATE_TARGETS=true)',
    );
  }
  if (u.username || u.password) throw new InvalidInputError('url', 'must not contain a user name or password');
  if (u.hash) throw new InvalidInputError('url', 'must not contain a #fragment');
  if (u.href.length > 2000) throw new InvalidInputError('url', 'must be at most 2000 characters');
  if (!allowPrivate && (literalAddressAllowed(u.hostname) === false || isLoopbackName(u.hostname))) {
    throw new InvalidInputError(
      'url',
      'points at an address that is not public (loopback, private, link-local, ...); WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows it',
    );
  }
  return u.href;
}

/** Comma-separated or a list; each among the subscribable types, returned in the catalogue's order. */
export function checkEventTypes(raw: string | string[]): string[] {
  const given = (Array.isArray(raw) ? raw : (raw ?? '').split(',')).map((s) => s.trim()).filter(Boolean);
  if (given.length === 0) throw new InvalidInputError('types', `needs at least one of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`);
  const unknown = given.filter((t) => !(SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length)
    throw new InvalidInputError('types', `: ${unknown.join(', ')} cannot be subscribed to; use ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`);
  return SUBSCRIBABLE_EVENT_TYPES.filter((t) => given.includes(t));
}

export const MAX_DESCRIPTION_LENGTH = 200;

/** The endpoint's label, trimmed: at most 200 characters; empty (or none) is no label. */
export function checkDescription(raw: string | null | undefined): string | null {
  const description = raw?.trim() || null;
  if (description !== null && description.length > MAX_DESCRIPTION_LENGTH)
    throw new InvalidInputError('description', `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  return description;
}
