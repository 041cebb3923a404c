/**
 * Strings the service never accepts, whatever the field: a NUL (PostgreSQL
 * text cannot hold it, so it used to surface as a 500) and a lone UTF-16
 * surrogate (not Unicode text; it would be stored as U+FFFD, silently
 * changing what the client sent).
 */
/**
 * How the OpenAPI document states the rule on a text: no NUL (a pattern of ECMA-262 without flags, which
 * every validator reads alike). A lone surrogate is stated in words only: a pattern for it needs Unicode
 * mode, and a validator without it would refuse every emoji instead.
 */
export const TEXT_PATTERN = '^[^\\u0000]*$';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface UnsafeString {
  path: string;
  message: string;
}

function problemOf(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode text (it holds a lone surrogate)';
  return null;
}

/** Parsed data (JSON, or Fastify's query object, whose prototype is its own empty one), not a stream or a buffer. */
const isRecord = (v: object): boolean =>
  !ArrayBuffer.isView(v) && !(v instanceof Date) && typeof (v as { pipe?: unknown }).pipe !== 'function';

/**
 * Deeper than any document the service takes (the internal call document is
 * under ten levels). A body nested 20,000 levels deep used to overflow the
 * stack of this walk and answer 500; it is refused as invalid input instead.
 */
export const MAX_DEPTH = 32;

const childPath = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;

/**
 * The first string in a parsed query or JSON body (members and their names,
 * at any depth) that the service refuses, named by its path; null if none.
 * Streams and buffers (an upload) are left alone.
 */
export function findUnsafeString(value: unknown, path = '', depth = 0): UnsafeString | null {
  if (typeof value === 'string') {
    const message = problemOf(value);
    return message ? { path: path || 'body', message } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_DEPTH) return { path: path || 'body', message: `must not be nested more than ${MAX_DEPTH} levels deep` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnsafeString(value[i], childPath(path, i), depth + 1);
      if (found) return found;
    }
    return null;
  }
  if (!isRecord(value)) return null;
  for (const [key, member] of Object.entries(value)) {
    // A name that is not text is never a known member; it is named without the bytes it carries.
    const nameProblem = problemOf(key);
    if (nameProblem) return { path: path || 'body', message: `has a member name that ${nameProblem}` };
    const found = findUnsafeString(member, childPath(path, key), depth + 1);
    if (found) return found;
  }
  return null;
}
