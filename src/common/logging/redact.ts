/** Query parameters whose value is a credential or personal data, whatever the route. */
const SENSITIVE_PARAMS = new Set([
  'api_key',
  'apikey',
  'key',
  'token',
  'access_token',
  'secret',
  'password',
  'signature',
  'authorization',
  'caller_number',
  'phone',
  'phone_number',
]);

/**
 * Credential shapes, wherever they appear: API keys (svc_live_ or svc_test_ + base64url), webhook
 * secrets (whsec_ + base64), and any base64url run of 43 or more characters, which is
 * the shape of a recording link token (32 random bytes) and of an API key body.
 */
const SECRET_SHAPES = /svc_(?:live|test)_[A-Za-z0-9_-]*|whsec_[A-Za-z0-9+/=_-]*|[A-Za-z0-9_-]{43,}/gi;

const REDACTED = '[REDACTED]';

const HEX_ESCAPE = /^%[0-9A-Fa-f]{2}$/;

/**
 * Percent-decoding that never throws: each valid %XX escape becomes its byte,
 * anything else (a stray %, %zz) stays as it is, and bytes that are not UTF-8
 * become U+FFFD. The router decodes what it routes on; shapes are matched on
 * the same text, so `%5F` or `%41` inside a token cannot hide it.
 */
export function decodeTolerantly(text: string): string {
  if (!text.includes('%')) return text;
  const bytes: Buffer[] = [];
  for (let i = 0; i < text.length;) {
    if (text[i] === '%' && HEX_ESCAPE.test(text.slice(i, i + 3))) {
      bytes.push(Buffer.from([parseInt(text.slice(i + 1, i + 3), 16)]));
      i += 3;
    } else {
      const char = String.fromCodePoint(text.codePointAt(i)!);
      bytes.push(Buffer.from(char, 'utf8'));
      i += char.length;
    }
  }
  return Buffer.concat(bytes).toString('utf8');
}

const hasShape = (text: string): boolean => text.search(SECRET_SHAPES) >= 0;
const hasEscape = (text: string): boolean => /%[0-9A-Fa-f]{2}/.test(text);

/**
 * One path segment or query name or value. As sent, shapes are replaced
 * where they stand; when it holds percent escapes and its decoded text holds
 * a shape, it is written decoded, each credential replaced and the rest
 * encoded again (`+` is kept as sent: it may be part of a whsec_ secret).
 */
function redactPart(raw: string): string {
  if (hasEscape(raw)) {
    const decoded = decodeTolerantly(raw);
    if (hasShape(decoded)) return decoded.split(SECRET_SHAPES).map(encodeURIComponent).join(REDACTED);
  }
  return raw.replace(SECRET_SHAPES, REDACTED);
}

/** A query parameter name as the query parser reads it (`+` is a space). */
const paramName = (text: string) => decodeTolerantly(text.replace(/\+/g, ' ')).toLowerCase();

function redactQuery(query: string, credentials: readonly string[] = []): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return redactPart(pair);
      const name = pair.slice(0, eq);
      const secret = SENSITIVE_PARAMS.has(paramName(name)) || credentials.includes(paramName(name));
      return `${redactPart(name)}=${secret ? REDACTED : redactPart(pair.slice(eq + 1))}`;
    })
    .join('&');
}

/**
 * Where a credential may stand but its shape cannot be trusted (a path that
 * matched no route, the query of a route with a credential): any run of 16 or
 * more token characters. A mistyped link (42 characters, a character
 * inserted, a slash doubled or encoded) thus never leaves 16 consecutive
 * characters of a live token in a log line, while short names stay readable.
 */
const LONG_RUNS = /[A-Za-z0-9_-]{16,}/g;
const redactLongRuns = (text: string): string => text.replace(LONG_RUNS, REDACTED);

/** The URL of a request that matched no route: nothing says where a credential may be, so every long run goes. */
export function redactUnmatchedUrl(url: string): string {
  return redactLongRuns(redactUrl(url) ?? '');
}

/**
 * The URL of a request whose route declares credentials, rebuilt from its
 * template: each credential path parameter is replaced whatever it holds
 * (near misses, percent-encoding, any case), the others written as the
 * router decoded them, and the query loses its declared credentials and any
 * long run.
 */
export function redactDeclaredUrl(
  url: string,
  route: { template: string; params: Record<string, string>; credentialParams: readonly string[]; credentialQuery: readonly string[] },
): string {
  const path = route.template.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
    route.credentialParams.includes(name) ? REDACTED : redactPart(encodeURIComponent(route.params[name] ?? '')),
  );
  const q = url.indexOf('?');
  return q < 0 ? path : `${path}?${redactLongRuns(redactQuery(url.slice(q + 1), route.credentialQuery))}`;
}

/**
 * The one function every logged URL goes through: sensitive query values by
 * parameter name, then credential shapes anywhere in path or query (so a
 * mistyped route such as /v1//recordings/{token} is covered too), each path
 * segment and query name and value matched both as sent and percent-decoded.
 */
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).split('/').map(redactPart).join('/');
  return q < 0 ? path : `${path}?${redactQuery(url.slice(q + 1))}`;
}

/** `Bearer` and the credential after it, wherever a header value holds one. */
const BEARER_CREDENTIAL = /\bBearer\s+[^\s,;]*/gi;

/** True when `text` (as sent or percent-decoded) holds a credential's shape: an API key, a whsec_ secret, a link token, a Bearer credential. */
export function hasCredentialShape(text: string): boolean {
  const shaped = (t: string) => hasShape(t) || t.search(BEARER_CREDENTIAL) >= 0;
  return shaped(text) || (hasEscape(text) && shaped(decodeTolerantly(text)));
}

/**
 * A header value as logged (the User-Agent of the access line, or any other a
 * log line or span records): each credential shape replaced, matched as sent
 * and, when the value holds percent escapes, as decoded (then written decoded).
 */
export function redactHeaderValue(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) ? value.join(', ') : value;
  const redact = (t: string) => t.replace(BEARER_CREDENTIAL, REDACTED).replace(SECRET_SHAPES, REDACTED);
  if (hasEscape(text)) {
    const decoded = decodeTolerantly(text);
    if (hasCredentialShape(decoded)) return redact(decoded);
  }
  return redact(text);
}

/** Header names never logged with their value. */
export const SECRET_HEADERS = ['authorization', 'cookie', 'set-cookie', 'x-internal-token', 'proxy-authorization', 'x-api-key'];
