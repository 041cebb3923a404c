import { createHash } from 'node:crypto';

/** JSON with every object's members in code-point order, so a body means the same request whatever its member order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What makes two requests with one Idempotency-Key the same request: the method, the path (without a trailing slash,
 * which routes alike) and the parsed body, its members in any order (no body at all is a body of its own). SHA-256, hex.
 */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const path = url.split('?')[0].replace(/(.)\/+$/, '$1');
  const canonicalBody = body === undefined || body === null || body === '' ? '' : canonicalJson(body);
  return createHash('sha256').update(`${method.toUpperCase()} ${path}\n${canonicalBody}`).digest('hex');
}
