import { isTimeZone } from 'class-validator';
import { InvalidInputError } from '../common/errors/invalid-input.js';
import { normalizePhone } from '../common/phone.js';

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** A URL-friendly id from a firm's name. */
export function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64) || 'firm'
  );
}

export function checkSlug(slug: string): string {
  if (!SLUG.test(slug)) throw new InvalidInputError('slug', `"${slug}" must be lowercase letters, digits and dashes`);
  return slug;
}

export function checkTimezone(timezone: string): string {
  if (!isTimeZone(timezone)) throw new InvalidInputError('timezone', `"${timezone}" is not an IANA timezone name`);
  return timezone;
}

/** The firm's receptionist number, stored as E.164. */
export function checkNumber(number: string): string {
  const e164 = normalizePhone(number);
  if (!e164) throw new InvalidInputError(null, `"${number}" is not a valid phone number`);
  return e164;
}
