/** "hh:mm:ss" then a fraction of the second (point or comma), and whatever follows it (the UTC offset). */
const SECONDS_FRACTION = /^(.*\d{2}:\d{2}:\d{2})[.,](\d+)(.*)$/;
/** A date-time that ends with its time, without a UTC offset. */
const NO_OFFSET = /[T ][\d:.]+$/;

/**
 * A date-time (ISO 8601, as the query validators accept it) as the exact
 * instant it names, in UTC, for PostgreSQL to compare at its own precision
 * (microseconds): `2026-05-01T00:00:00.0001+02:00` is
 * `2026-04-30T22:00:00.000100Z`. A JS Date keeps milliseconds only, so the
 * digits after the third are carried beside it. Beyond the sixth they are
 * rounded up to the next microsecond, which for a microsecond column is
 * exact for every filter: t >= x holds exactly when t >= ceil(x), and t < x
 * exactly when t < ceil(x). (PostgreSQL itself would round half to even,
 * letting `from=...00.0000005Z` include a row at `...00.000000Z`.)
 *
 * Without a UTC offset the value is read as UTC. The text is canonical (the
 * same instant always reads the same, as cursors' filter fingerprints need):
 * six fractional digits when the instant has a part below the millisecond,
 * otherwise Date's toISOString. Null when Date cannot read it (week and
 * ordinal dates pass the ISO 8601 validator).
 */
export function exactInstant(text: string): string | null {
  const m = SECONDS_FRACTION.exec(text);
  const digits = m ? m[2] : '';
  const millisText = m ? `${m[1]}.${digits.slice(0, 3).padEnd(3, '0')}${m[3]}` : text;
  const ms = Date.parse(NO_OFFSET.test(millisText) ? `${millisText}Z` : millisText);
  if (Number.isNaN(ms)) return null;
  const below = Number(digits.slice(3, 6).padEnd(3, '0')) + (/[1-9]/.test(digits.slice(6)) ? 1 : 0);
  const carry = below === 1000 ? 1 : 0;
  const iso = sqlYear(new Date(ms + carry).toISOString());
  return below % 1000 === 0 ? iso : `${iso.slice(0, -1)}${String(below).padStart(3, '0')}Z`;
}

/** Years past 9999 as PostgreSQL reads them: toISOString writes `+010000`, PostgreSQL wants `10000`. */
function sqlYear(iso: string): string {
  return iso.startsWith('+') ? iso.slice(1).replace(/^0+(?=\d{5})/, '') : iso;
}
