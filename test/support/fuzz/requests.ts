import fc from 'fast-check';
import type { RawRequest } from '../raw-http';
import type { FuzzOperation, FuzzParam } from './operations';
import { schemaValue } from './schema-values';

type Json = Record<string, any>;

/** A request being built for one operation: byte strings (latin1), so hostile bytes survive untouched. */
export interface FuzzRequest {
  [fc.toStringMethod]: (this: FuzzRequest) => string;
  /** An empty list: no valid value is known, the parameter is left out unless required. */
  /** Credentials to cut out when the request is printed. */
  secrets: string[];
  op: FuzzOperation;
  /** What was done to a valid request, for the failure message ("valid" for none). */
  label: string;
  method: string;
  path: string;
  /** Query pieces, "name=value" as sent. */
  query: string[];
  headers: [string, string][];
  body?: Buffer;
}

/** Real values of the seeded firm by parameter name (ids, tokens), and the key with every scope. */
export interface FuzzContext {
  doc: Json;
  key: string;
  /** A test key (svc_test_), for the operations that take only one. */
  testKey: string;
  /** INTERNAL_API_TOKEN, for the pipeline's routes. */
  internalToken: string;
  values: Record<string, string[]>;
  /** An empty list: no valid value is known, the parameter is left out unless required. */
  /** Credentials (the key, link tokens) cut out of every failure message. */
  secrets: string[];
}

/** Percent-encodes the UTF-8 of a string (a lone surrogate becomes U+FFFD, as any client's encoder would do). */
export const percentEncode = (s: string): string =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** A valid value for a parameter: mostly one of the firm's real ones where the name is known, else from its schema. */
export function paramValue(ctx: FuzzContext, p: FuzzParam): fc.Arbitrary<string> {
  const fromSchema = schemaValue(ctx.doc, p.schema).map((v) => String(v));
  const real = ctx.values[p.name];
  return real?.length ? fc.oneof({ arbitrary: fc.constantFrom(...real), weight: 4 }, { arbitrary: fromSchema, weight: 1 }) : fromSchema;
}

const VALID_RANGES = ['bytes=0-99', 'bytes=100-', 'bytes=-500', 'bytes=0-0', 'bytes=10-20'];

/** A request the document allows: real ids, some of the optional query parameters, a body from the schema. */
export function validRequest(ctx: FuzzContext, op: FuzzOperation): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  // A name listed with no values (a cursor: only a previous page makes one) is left out of valid requests.
  const queryParams = op.params.filter((p) => p.in === 'query' && (p.required || ctx.values[p.name]?.length !== 0));
  const headerParams = op.params.filter((p) => p.in === 'header');
  return fc
    .record({
      path: fc.tuple(...pathParams.map((p) => paramValue(ctx, p))),
      query: fc.tuple(...queryParams.map((p) => (p.required ? paramValue(ctx, p) : fc.option(paramValue(ctx, p), { nil: undefined })))),
      headers: fc.tuple(
        ...headerParams.map((p) =>
          fc.option(p.name.toLowerCase() === 'range' ? fc.constantFrom(...VALID_RANGES) : paramValue(ctx, p), { nil: undefined }),
        ),
      ),
      body: op.rawBody ? op.rawBody.valid : op.body ? schemaValue(ctx.doc, op.body) : fc.constant(undefined),
    })
    .map(({ path, query, headers, body }) => {
      let built = op.template;
      pathParams.forEach((p, i) => (built = built.replace(`{${p.name}}`, percentEncode(path[i]))));
      const r: FuzzRequest = {
        [fc.toStringMethod]: printRequest,
        secrets: ctx.secrets,
        op,
        label: 'valid',
        method: op.method,
        path: built,
        query: queryParams.flatMap((p, i) => (query[i] === undefined ? [] : [`${p.name}=${percentEncode(query[i])}`])),
        headers: headerParams.flatMap((p, i): [string, string][] => (headers[i] === undefined ? [] : [[p.name, headers[i]]])),
      };
      if (op.keyed) r.headers.push(['Authorization', `Bearer ${op.testModeOnly ? ctx.testKey : ctx.key}`]);
      if (op.internal) r.headers.push(['Authorization', `Bearer ${ctx.internalToken}`]);
      if (op.rawBody) withJsonBody(r, body as Buffer, op.rawBody.contentType);
      else if (body !== undefined) withJsonBody(r, Buffer.from(JSON.stringify(body), 'utf8'));
      return r;
    });
}

/** Sets (or replaces) the body and its content type. */
export function withJsonBody(r: FuzzRequest, body: Buffer, type = 'application/json'): FuzzRequest {
  r.headers = r.headers.filter(([n]) => n.toLowerCase() !== 'content-type');
  r.headers.push(['Content-Type', type]);
  r.body = body;
  return r;
}

export const toRaw = (r: FuzzRequest): RawRequest => ({
  method: r.method,
  target: r.query.length ? `${r.path}?${r.query.join('&')}` : r.path,
  headers: r.headers,
  body: r.body,
});

/** fast-check prints a counterexample with this (copies keep it): one line, secrets cut out, a 1 MB body shortened. */
function printRequest(this: FuzzRequest): string {
  return describe(this, this.secrets);
}

/** The request in one line for a failure message, hostile bytes escaped and long runs cut. */
export function describe(r: FuzzRequest, secrets: string[]): string {
  const hide = (s: string) => secrets.reduce((acc, secret) => acc.split(secret).join('<secret>'), s);
  const cut = (raw: string) => {
    const s = hide(raw);
    return s.length > 300 ? `${s.slice(0, 300)}…(${s.length} chars)` : s;
  };
  const target = toRaw(r).target;
  const headers = r.headers.map(([n, v]) => `${n}: ${cut(v)}`);
  const body = r.body ? cut(r.body.toString('latin1')) : '';
  return `[${r.label}] ${r.method} ${JSON.stringify(cut(target))} ${JSON.stringify(headers)} body=${JSON.stringify(body)}`;
}
