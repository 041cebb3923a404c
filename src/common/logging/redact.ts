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
 * Credential shapes, wherever they appear: API keys (svc_live_ + base64url), webhook
 * secrets (whsec_ + base64), and any base64url run of 43 or more characters, which is
 * the shape of a recording link token (32 random bytes) and of an API key body.
 */
const SECRET_SHAPES = [/svc_live_[A-Za-z0-9_-]*/gi, /whsec_[A-Za-z0-9+/=_-]*/gi, /[A-Za-z0-9_-]{43,}/g];

const REDACTED = '[REDACTED]';

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed escape still gets its value checked by shape below.
      }
      return SENSITIVE_PARAMS.has(name.toLowerCase()) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * The one function every logged URL goes through: sensitive query values by
 * parameter name, then credential shapes anywhere in path or query (so a
 * mistyped route such as /v1//recordings/{token} is covered too).
 */
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const q = url.indexOf('?');
  let out = q < 0 ? url : url.slice(0, q + 1) + redactQuery(url.slice(q + 1));
  for (const shape of SECRET_SHAPES) out = out.replace(shape, REDACTED);
  return out;
}

/** Header names never logged with their value. */
export const SECRET_HEADERS = ['authorization', 'cookie', 'set-cookie', 'x-internal-token', 'proxy-authorization', 'x-api-key'];
