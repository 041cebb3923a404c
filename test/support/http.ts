import { checkExchange } from './conformance';
import { registerLinkTokensIn } from './run-log';
import { CREDENTIAL_SHAPED_HEADERS } from './secrets';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
}

/**
 * One HTTP request to a running service: `key` as a bearer token, `body` sent
 * as JSON, JSON answers parsed, credential-shaped headers sent along (secrets.ts).
 * Every answer is checked against the document
 * that service serves (test/support/conformance.ts): a mismatch throws.
 */
export async function requestAt<T = any>(baseUrl: string, method: string, path: string, o: RequestOptions = {}): Promise<HttpResult<T>> {
  const url = new URL(path, baseUrl);
  for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  // Unless the test sends its own: credential-shaped User-Agent and x-request-id, for the end-of-run log scan to catch a copy.
  const own = new Set(Object.keys(o.headers ?? {}).map((name) => name.toLowerCase()));
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(CREDENTIAL_SHAPED_HEADERS).filter(([name]) => !own.has(name))),
    ...(o.headers ?? {}),
  };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  let body: string | Buffer | undefined = o.rawBody;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  const result = { status: res.status, headers: res.headers, body: parsed as T, text };
  // A link a test creates is a live credential: the end-of-run log scan looks for any part of it.
  registerLinkTokensIn(text);
  await checkExchange(baseUrl, method, url.toString(), result);
  return result;
}
