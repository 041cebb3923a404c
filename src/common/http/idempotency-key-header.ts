import { durationText } from '../duration-text.js';

/** The request header (IETF draft-ietf-httpapi-idempotency-key-header) and what a key may be. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * How long a key is kept from its first request (Stripe's and the draft's usual 24 hours): the idempotency store
 * (src/idempotency) forgets it then, and the document, the 422 and this header's description say so.
 */
export const IDEMPOTENCY_KEY_KEPT_MS = 24 * 3600_000;
/** The time a key is kept as the document words it: "24 hours". */
export const IDEMPOTENCY_KEY_KEPT_TEXT = durationText(IDEMPOTENCY_KEY_KEPT_MS, 'hour');

/** What a refusal says a key is. */
export const IDEMPOTENCY_KEY_RULE = `1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters, bare or as a structured-field string ("..." with \\" and \\\\ escapes)`;

/**
 * The header's value as the document states it: 1 to 255 visible ASCII characters not starting with a quote, or a
 * structured-field string of 1 to 255 characters (visible ASCII and spaces, `\"` and `\\` escaped).
 */
export const IDEMPOTENCY_KEY_PATTERN = `^(?:[!#-~][!-~]{0,${MAX_IDEMPOTENCY_KEY_LENGTH - 1}}|"(?:[ !#-\\[\\]-~]|\\\\["\\\\]){1,${MAX_IDEMPOTENCY_KEY_LENGTH}}")$`;

/** The header's description in the document. */
export const IDEMPOTENCY_KEY_HEADER_DOC = [
  'Makes a retry safe (IETF draft-ietf-httpapi-idempotency-key-header): a unique value per operation, such as a UUID v4, sent again unchanged on each retry of it.',
  `${MAX_IDEMPOTENCY_KEY_LENGTH} characters at most: visible ASCII (\`8e03978e-40d5-43e8-bc93-6894a57f9324\`), or the draft's structured-field string (\`"8e03978e-40d5-43e8-bc93-6894a57f9324"\`, the same key); anything else answers 400.`,
  `The first request with a key runs, and its answer (status and body) is kept for ${IDEMPOTENCY_KEY_KEPT_TEXT} for the API key that sent it (two keys never share one).`,
  "The same key with the same route and body answers that stored answer with `Idempotent-Replayed: true` and runs nothing again: no new event, delivery, link or test call, and nothing spent of the operation's own limits (an endpoint's tests and resends a minute, the test calls an hour); like any request it counts against the key's rate limit.",
  'The same key with another route or body answers 422 `idempotency_key_reused`; while the first request is still being processed, 409 `idempotency_key_in_use` with `Retry-After`.',
  'Answers that say the request was not run are not kept, so the same key can be retried: 400, 401, 403, 413, 415, 429 and 5xx. Without the header a request runs as it always does.',
].join(' ');

/**
 * Which answers are stored and replayed: whatever the operation answered, except those that say it was not run and
 * may be sent again as it is (a refused body or parameter, the key or its scope, a rate limit, an outage, our own
 * fault). Those let the key go at once. 409 and 422 are kept only when the operation answered them itself (the
 * idempotency stage's own 409 and 422 store nothing).
 */
export function storesAnswer(status: number): boolean {
  return status < 500 && ![400, 401, 403, 408, 413, 415, 429].includes(status);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const visible = (c: number) => c >= 0x21 && c <= 0x7e;
/** A structured-field string's characters: visible ASCII and the space. */
const printable = (c: number) => c >= 0x20 && c <= 0x7e;

/**
 * The structured-field string (RFC 8941 §3.3.3) that is the whole value: the text between its quotes, unescaped, or
 * null when the value is not exactly one such string.
 */
function sfString(value: string): string | null {
  let out = '';
  for (let i = 1; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === BACKSLASH) {
      const next = value.charCodeAt(++i);
      if (next !== QUOTE && next !== BACKSLASH) return null;
      out += value[i];
    } else if (c === QUOTE) {
      return i === value.length - 1 ? out : null;
    } else if (!printable(c)) {
      return null;
    } else {
      out += value[i];
    }
  }
  return null;
}

/**
 * The key an `Idempotency-Key` value names: the draft's form, a structured-field string (`"8e03978e-..."`), or the
 * bare token most clients send (`8e03978e-...`); both name the same key. Null when the value is neither, or the key
 * is empty or longer than 255 characters.
 */
export function parseIdempotencyKey(raw: string): string | null {
  const value = raw.trim();
  const key = value.charCodeAt(0) === QUOTE ? sfString(value) : [...value].every((ch) => visible(ch.charCodeAt(0))) ? value : null;
  return key !== null && key.length >= 1 && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH ? key : null;
}

/** How many `Idempotency-Key` headers the request carries (Node joins repeated unknown headers into one value). */
export function idempotencyKeyHeaderCount(rawHeaders: string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i].toLowerCase() === IDEMPOTENCY_KEY_HEADER) n++;
  return n;
}
