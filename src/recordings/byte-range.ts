import type { ByteRange } from './store/recording-store.js';

// At most 15 digits keeps every position an exact JavaScript integer.
const FROM = /^bytes=(\d{1,15})-(\d{0,15})$/i;
const SUFFIX = /^bytes=-(\d{1,15})$/i;

/**
 * The one byte range to serve, or null for the whole file.
 *
 * Exactly one range in the forms `bytes=N-`, `bytes=N-M` and `bytes=-N`
 * that the file can satisfy is honoured (M past the end is clamped, as RFC
 * 9110 says). Anything else (several ranges, other units, garbage, M < N,
 * N at or past the end, `bytes=-0`) is ignored: the whole file with 200, as
 * the contract says, instead of 416.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null {
  if (header === undefined || size <= 0) return null;
  const value = header.trim();
  const suffix = SUFFIX.exec(value);
  if (suffix) {
    const length = Number(suffix[1]);
    if (length === 0) return null;
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const from = FROM.exec(value);
  if (!from) return null;
  const start = Number(from[1]);
  if (start >= size) return null;
  if (from[2] === '') return { start, end: size - 1 };
  const last = Number(from[2]);
  if (last < start) return null;
  return { start, end: Math.min(last, size - 1) };
}
