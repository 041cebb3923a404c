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

/*
 * The form of a phone number as the `caller_number` filters take it: E.164 (+, a country code not starting
 * with 0, at most 15 digits in all) or a 10-digit US number, optionally after the country code 1, with
 * spaces, dots, hyphens and parentheses anywhere and an extension at the end ("x12", "ext. 12",
 * "extension 12"), which a number filter ignores as normalizePhone does. The document serves this
 * pattern (ECMA-262, no flags) and the service checks the same one; no two parts of it can match the same
 * character, so a long run of separators costs linear time.
 */
const SEPARATOR = '[\\s().-]';
const E164_FORM = `\\+${SEPARATOR}*[1-9](?:${SEPARATOR}*\\d){1,14}`;
const US_FORM = `(?:1${SEPARATOR}*)?\\d(?:${SEPARATOR}*\\d){9}`;
const EXTENSION_FORM = '(?:[Ee][Xx][Tt](?:[Ee][Nn][Ss][Ii][Oo][Nn])?\\.?|[Xx])\\s*\\d{1,10}\\s*';
export const PHONE_FORM_PATTERN = `^${SEPARATOR}*(?:${E164_FORM}|${US_FORM})${SEPARATOR}*(?:${EXTENSION_FORM})?$`;
const PHONE_FORM = new RegExp(PHONE_FORM_PATTERN);

/** The form in words, for the document. */
export const CALLER_NUMBER_FORM =
  'E.164 (+, then 2 to 15 digits, the first not 0), or a 10-digit US number, optionally after 1 (no + means US); spaces, dots, ' +
  'hyphens and parentheses anywhere, and an extension at the end (x12, ext. 12), are ignored.';
/** The 400 of a caller_number filter not of the form. */
export const CALLER_NUMBER_MESSAGE =
  'caller_number must be a phone number: E.164 such as +13125550123, or a 10-digit US number such as (312) 555-0123';

export const isPhoneForm = (text: unknown): text is string => typeof text === 'string' && PHONE_FORM.test(text);

/** The separators of the common written forms: spaces, dots, hyphens, parentheses. */
const SEPARATORS = /[\s().-]/g;
/** An extension after the number, removed before the digits are read. */
const EXTENSION = /(?:ext(?:ension)?\.?|x)\s*\d{1,10}\s*$/i;

/**
 * The value a `caller_number` filter compares with the stored E.164 numbers,
 * or null when the text is not of the filter's form (PHONE_FORM_PATTERN). A
 * number of the form that is not a valid one ("(555) 555-5555": no such area
 * code) gets its digits in E.164 shape: no stored number is invalid
 * (normalizePhone), so it matches nothing, and the list is empty rather than
 * refused.
 */
export function phoneFilterValue(text: string): string | null {
  if (!isPhoneForm(text)) return null;
  const valid = normalizePhone(text);
  if (valid) return valid;
  const digits = text.trim().replace(EXTENSION, '').replace(SEPARATORS, '');
  return digits.startsWith('+') ? digits : `+1${digits.slice(-10)}`;
}

/** Legacy masked form: the last four digits only. */
export function maskPhone(e164: string | null): string | null {
  if (!e164) return null;
  return `***-***-${e164.slice(-4)}`;
}
