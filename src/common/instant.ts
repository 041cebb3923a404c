/*
 * The date-time a query parameter (`from`, `to`, `updated_since`) takes: an
 * RFC 3339 date-time, plus what integrators commonly send and the service has
 * always read: no UTC offset (read as UTC), a date alone (midnight UTC), no
 * seconds, a space (or a lower-case t) instead of T, a comma before the
 * fraction, an offset without its colon (+0200). The calendar is checked in
 * the pattern itself (month lengths, 29 February of leap years only), so the
 * OpenAPI document states exactly what the validator accepts: it serves this
 * same pattern. Years run 0001 to 9999 (PostgreSQL has no year 0).
 */
/** 0001 to 9999, written out rather than with a lookahead, which some validators' regular expressions lack. */
const YEAR = '(?:[1-9]\\d{3}|0[1-9]\\d\\d|00[1-9]\\d|000[1-9])';
const DAY_OF_31 = '(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])';
const DAY_OF_30 = '(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)';
const DAY_OF_FEBRUARY = '02-(?:0[1-9]|1\\d|2[0-8])';
/** Years divisible by 4, except centuries not divisible by 400 (and year 0). */
const LEAP_DAY = '(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)-02-29';
const DATE = `(?:${YEAR}-(?:${DAY_OF_31}|${DAY_OF_30}|${DAY_OF_FEBRUARY})|${LEAP_DAY})`;
const TIME = '[Tt ](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:[.,]\\d+)?)?';
const UTC_OFFSET = '(?:[Zz]|[+-](?:[01]\\d|2[0-3]):?[0-5]\\d)';

/** The whole grammar, as the document's `pattern` (ECMA-262, no flags) and the validator's check. */
export const QUERY_DATE_TIME_PATTERN = `^${DATE}(?:${TIME}${UTC_OFFSET}?)?$`;
const QUERY_DATE_TIME = new RegExp(QUERY_DATE_TIME_PATTERN);

/** The forms in words, for the document and the 400. */
export const QUERY_DATE_TIME_FORMS =
  'an RFC 3339 date-time (2026-05-01T09:30:00Z, 2026-05-01T09:30:00.5-05:00); without a UTC offset it is read as UTC, and a ' +
  'date alone (2026-05-01) is its midnight UTC. Also read: no seconds (09:30Z), a space or t for T, z for Z, a comma before ' +
  'the fraction, an offset without its colon (-0500)';

/** The parts of a value that matched QUERY_DATE_TIME_PATTERN. */
const PARTS = /^(\d{4})-(\d\d)-(\d\d)(?:[Tt ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?(?:[Zz]|([+-])(\d\d):?(\d\d))?)?$/;

export const isQueryDateTime = (value: unknown): value is string => typeof value === 'string' && QUERY_DATE_TIME.test(value);

/**
 * A query date-time (QUERY_DATE_TIME_PATTERN) as the exact instant it names,
 * in UTC, for PostgreSQL to compare at its own precision (microseconds):
 * `2026-05-01T00:00:00.0001+02:00` is `2026-04-30T22:00:00.000100Z`. A JS
 * Date keeps milliseconds only, so the digits after the third are carried
 * beside it. Beyond the sixth they are rounded up to the next microsecond,
 * which for a microsecond column is exact for every filter: t >= x holds
 * exactly when t >= ceil(x), and t < x exactly when t < ceil(x). (PostgreSQL
 * itself would round half to even, letting `from=...00.0000005Z` include a
 * row at `...00.000000Z`.)
 *
 * The text is canonical (the same instant always reads the same, as cursors'
 * filter fingerprints need): six fractional digits when the instant has a
 * part below the millisecond, otherwise Date's toISOString. Null for any
 * other text.
 */
export function exactInstant(text: string): string | null {
  if (!isQueryDateTime(text)) return null;
  const [, year, month, day, hours = '0', minutes = '0', seconds = '0', digits = '', sign, offsetHours, offsetMinutes] = PARTS.exec(text)!;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hours), Number(minutes), Number(seconds), Number(digits.slice(0, 3).padEnd(3, '0')));
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) : 0;
  const ms = date.getTime() - offset * 60_000;
  const below = Number(digits.slice(3, 6).padEnd(3, '0')) + (/[1-9]/.test(digits.slice(6)) ? 1 : 0);
  const carry = below === 1000 ? 1 : 0;
  const iso = new Date(ms + carry).toISOString();
  return sqlYear(below % 1000 === 0 ? iso : `${iso.slice(0, -1)}${String(below).padStart(3, '0')}Z`);
}

/**
 * Years outside 0001-9999 as PostgreSQL reads them: toISOString writes `+010000`, PostgreSQL wants `10000`;
 * year 0 (0001-01-01 early in the day, read with a positive offset) is 1 BC.
 */
function sqlYear(iso: string): string {
  if (iso.startsWith('+')) return iso.slice(1).replace(/^0+(?=\d{5})/, '');
  return iso.startsWith('0000-') ? `0001${iso.slice(4)} BC` : iso;
}
