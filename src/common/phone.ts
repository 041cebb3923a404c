import { parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * A phone number as written (E.164, or a US number in common formats such as
 * "(312) 555-0123"; without a leading + it is read as US) to E.164, or null
 * when it is not a valid number. Calls store `from` and leads their phone
 * normalised this way, and the `caller_number` filters compare the same way.
 */
export function normalizePhone(text: string | null | undefined): string | null {
  if (typeof text !== 'string' || text.trim() === '') return null;
  const parsed = parsePhoneNumberFromString(text, text.trim().startsWith('+') ? undefined : 'US');
  return parsed && parsed.isValid() ? parsed.number : null;
}

/** The separators of the common written forms: spaces, dots, hyphens, parentheses. */
const SEPARATORS = /[\s().-]/g;
/** An extension after the number ("x12", "ext. 12", "extension 12"), which a number filter ignores as normalizePhone does. */
const EXTENSION = /(?:ext(?:ension)?\.?|x)\s*\d{1,10}\s*$/i;
/** E.164: +, a country code not starting with 0, at most 15 digits in all. */
const E164 = /^\+[1-9]\d{1,14}$/;
/** A 10-digit US number, optionally after the country code 1. */
const US_DIGITS = /^1?(\d{10})$/;

/**
 * The value a `caller_number` filter compares with the stored E.164 numbers,
 * or null when the text is not of the filter's form (E.164, or a 10-digit US
 * number in common formats). A number of the form that is not a valid one
 * ("(555) 555-5555": no such area code) gets its digits in E.164 shape: no
 * stored number is invalid (normalizePhone), so it matches nothing, and the
 * list is empty rather than refused.
 */
export function phoneFilterValue(text: string): string | null {
  const valid = normalizePhone(text);
  if (valid) return valid;
  const compact = text.trim().replace(EXTENSION, '').replace(SEPARATORS, '');
  if (compact.startsWith('+')) return E164.test(compact) ? compact : null;
  const us = US_DIGITS.exec(compact);
  return us ? `+1${us[1]}` : null;
}

/** Legacy masked form: the last four digits only. */
export function maskPhone(e164: string | null): string | null {
  if (!e164) return null;
  return `***-***-${e164.slice(-4)}`;
}
