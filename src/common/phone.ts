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

/** Legacy masked form: the last four digits only. */
export function maskPhone(e164: string | null): string | null {
  if (!e164) return null;
  return `***-***-${e164.slice(-4)}`;
}
