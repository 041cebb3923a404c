import fc from 'fast-check';
import { hostileText, invalidJson, oddAuthorization, oddMemberName, oddRange, rawTargetBytes, wrongContentType } from './hostile-values';
import type { FuzzOperation } from './operations';
import { paramValue, percentEncode, validRequest, withJsonBody, type FuzzContext, type FuzzRequest } from './requests';
import { schemaValue } from './schema-values';

type Mutation = (r: FuzzRequest) => FuzzRequest;

const copy = (r: FuzzRequest, label: string): FuzzRequest => ({ ...r, label, query: [...r.query], headers: [...r.headers] });
const setHeader = (r: FuzzRequest, name: string, value: string) => {
  r.headers = r.headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
  r.headers.push([name, value]);
  return r;
};
/** A JSON object text written member by member, so "__proto__" is a member and not a prototype. */
const objectText = (members: [string, unknown][]) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;

/** Changes to the query string: wrong values, raw bytes, repeats, arrays, unknown names. */
function queryMutations(ctx: FuzzContext, op: FuzzOperation): Record<string, fc.Arbitrary<Mutation>> {
  const params = op.params.filter((p) => p.in === 'query');
  const names = [...params.map((p) => p.name), 'limit', 'cursor'];
  const name = fc.constantFrom(...names);
  const repeated = params.length
    ? fc
        .constantFrom(...params)
        .chain((p) => fc.tuple(fc.constant(p.name), paramValue(ctx, p), paramValue(ctx, p)))
        .map(([n, a, b]): Mutation => (r) => ({
          ...copy(r, `repeated ${n}`),
          query: [...r.query, `${n}=${percentEncode(a)}`, `${n}=${percentEncode(b)}`],
        }))
    : fc.constant<Mutation>((r) => ({ ...copy(r, 'repeated limit'), query: [...r.query, 'limit=1', 'limit=2'] }));
  return {
    'query hostile value': fc.tuple(name, hostileText).map(([n, v]): Mutation => (r) => ({
      ...copy(r, `query ${n}=hostile`),
      query: [...r.query.filter((q) => !q.startsWith(`${n}=`)), `${n}=${percentEncode(v)}`],
    })),
    'query raw bytes': fc
      .tuple(name, rawTargetBytes)
      .map(([n, v]): Mutation => (r) => ({ ...copy(r, `query ${n} raw bytes`), query: [...r.query, `${n}=${v}`] })),
    'query repeated': repeated,
    'query name suffix': fc
      .tuple(name, fc.constantFrom('[]', '[0]', '[a]', '.x', '[__proto__]'))
      .map(([n, suffix]): Mutation => (r) => ({ ...copy(r, `query ${n}${suffix}`), query: [...r.query, `${n}${suffix}=1`] })),
    'query unknown name': fc.tuple(oddMemberName, fc.constantFrom('x', '1', '')).map(([n, v]): Mutation => (r) => ({
      ...copy(r, `unknown query ${JSON.stringify(n).slice(0, 20)}`),
      query: [...r.query, `${percentEncode(n)}=${v}`],
    })),
    'query odd piece': fc
      .constantFrom('&&', '=x', 'limit', '&', '?', 'a=b=c')
      .map((piece): Mutation => (r) => ({ ...copy(r, `query piece ${piece}`), query: [...r.query, piece] })),
  };
}

/** Changes to a path parameter: hostile, raw, overlong or empty ids. */
function pathMutations(op: FuzzOperation): Record<string, fc.Arbitrary<Mutation>> {
  const params = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  if (!params.length) return { 'path trailing slash': fc.constant((r) => ({ ...copy(r, 'trailing slash'), path: `${r.path}/` })) };
  const replace = (r: FuzzRequest, name: string, bytes: string, label: string): FuzzRequest => {
    let path = r.op.template;
    for (const p of params)
      path = path.replace(`{${p}}`, p === name ? bytes : (r.path.split('/')[r.op.template.split('/').indexOf(`{${p}}`)] ?? 'x'));
    return { ...copy(r, label), path };
  };
  const name = fc.constantFrom(...params);
  // A NUL in each parameter, named: PostgreSQL refuses one in text, so each must be refused before a statement sees it.
  const nuls = Object.fromEntries(
    params.map((p) => [
      `path ${p} with a NUL`,
      fc.constantFrom('%00', 'a%00b', 'call_%00').map(
        (v): Mutation =>
          (r) =>
            replace(r, p, v, `path ${p}=${v}`),
      ),
    ]),
  );
  return {
    ...nuls,
    'path hostile id': fc.tuple(name, hostileText).map(
      ([n, v]): Mutation =>
        (r) =>
          replace(r, n, percentEncode(v) || '%20', `path ${n}=hostile`),
    ),
    'path raw bytes': fc.tuple(name, rawTargetBytes).map(
      ([n, v]): Mutation =>
        (r) =>
          replace(r, n, v, `path ${n} raw bytes`),
    ),
    'path overlong id': fc.tuple(name, fc.integer({ min: 65, max: 9000 })).map(
      ([n, len]): Mutation =>
        (r) =>
          replace(r, n, `call_${'a'.repeat(len)}`, `path ${n} overlong`),
    ),
  };
}

/** Changes to headers: odd Authorization (also repeated, also missing), odd Range, odd content types. */
function headerMutations(ctx: FuzzContext): Record<string, fc.Arbitrary<Mutation>> {
  return {
    'odd authorization': oddAuthorization(ctx.key).map(
      (v): Mutation =>
        (r) =>
          setHeader(copy(r, 'odd authorization'), 'Authorization', v),
    ),
    'two authorization headers': oddAuthorization(ctx.key).map((v): Mutation => (r) => ({
      ...copy(r, 'two authorization headers'),
      headers: [...r.headers, ['authorization', v]],
    })),
    'no authorization': fc.constant<Mutation>((r) => ({
      ...copy(r, 'no authorization'),
      headers: r.headers.filter(([n]) => n.toLowerCase() !== 'authorization'),
    })),
    'odd range': oddRange.map(
      (v): Mutation =>
        (r) =>
          setHeader(copy(r, 'odd range'), 'Range', v),
    ),
    'two ranges': fc.constant<Mutation>((r) => ({
      ...copy(r, 'two ranges'),
      headers: [...r.headers, ['Range', 'bytes=0-1'], ['Range', 'bytes=2-3']],
    })),
    'wrong content type': wrongContentType.map(
      (v): Mutation =>
        (r) =>
          setHeader(copy(r, `content-type ${v}`), 'Content-Type', v),
    ),
  };
}

/** Changes to the body: invalid JSON, invalid UTF-8, 1 MB, wrong member types, unknown and prototype members, wrong types. */
function bodyMutations(ctx: FuzzContext, op: FuzzOperation): Record<string, fc.Arbitrary<Mutation>> {
  const names = Object.keys(op.body?.properties ?? { status: 1 });
  const valid = op.body ? schemaValue(ctx.doc, op.body) : fc.constant({});
  const member = fc.oneof(fc.constantFrom(...names), oddMemberName);
  const body =
    (label: string, text: string | Buffer, type?: string): Mutation =>
    (r) =>
      withJsonBody(copy(r, label), typeof text === 'string' ? Buffer.from(text, 'utf8') : text, type);
  return {
    'invalid json': invalidJson.map((text) => body('invalid json', text)),
    'member of any json': fc
      .tuple(member, fc.jsonValue({ maxDepth: 3 }))
      .map(([n, v]) => body(`member ${JSON.stringify(n).slice(0, 20)} any json`, objectText([[n, v]]))),
    'member of hostile text': fc
      .tuple(member, hostileText)
      .map(([n, v]) => body(`member ${JSON.stringify(n).slice(0, 20)} hostile text`, objectText([[n, v]]))),
    'valid plus odd member': fc
      .tuple(valid, oddMemberName, fc.jsonValue({ maxDepth: 2 }))
      .map(([v, n, x]) => body('valid plus odd member', objectText([...Object.entries(v as object), [n, x]]))),
    'invalid utf-8': fc
      .tuple(fc.constantFrom(...names), fc.constantFrom('caf\xe9', '\xff\xfe', '\xc3(', '\xed\xa0\x80', '\xf4\x90\x80\x80'))
      .map(([n, bad]) => body('invalid utf-8', Buffer.concat([Buffer.from(`{"${n}":"`), Buffer.from(bad, 'latin1'), Buffer.from('"}')]))),
    'escaped surrogate or control': fc
      .tuple(fc.constantFrom(...names), fc.constantFrom('\\ud800', 'a\\udc00b', '\\u0000', '\\u001f'))
      .map(([n, esc]) => body(`escape ${esc}`, `{"${n}":"${esc}"}`)),
    '1 MB body': fc.constantFrom(...names).map((n) => body('1 MB body', `{"${n}":"${'a'.repeat(1024 * 1024)}"}`)),
    '1 MB of bytes': fc.constant(body('1 MB of bytes', Buffer.alloc(1024 * 1024, 0x7b))),
    'json under another type': fc.tuple(valid, wrongContentType).map(([v, type]) => body(`json as ${type}`, JSON.stringify(v), type)),
    'duplicate member': fc
      .tuple(fc.constantFrom(...names), fc.constantFrom('contacted', 'signed'))
      .map(([n, v]) => body('duplicate member', `{"${n}":"${v}","${n}":"rejected"}`)),
  };
}

/** Every kind of hostile change to a request of `op`, by name, in four groups: query, path, headers, body. */
export function mutationKinds(ctx: FuzzContext, op: FuzzOperation): Record<string, fc.Arbitrary<Mutation>>[] {
  return [queryMutations(ctx, op), pathMutations(op), headerMutations(ctx), bodyMutations(ctx, op)];
}

const applied = (r0: FuzzRequest, ms: Mutation[]): FuzzRequest =>
  ms.reduce((r, m) => {
    const next = m(r);
    return { ...next, label: r.label === 'valid' ? next.label : `${r.label} + ${next.label}` };
  }, r0);

/** A valid request of `op` with one hostile change (sometimes two) of any kind: a group at random, then a kind of it. */
export function hostileRequest(ctx: FuzzContext, op: FuzzOperation): fc.Arbitrary<FuzzRequest> {
  const mutation = fc.oneof(...mutationKinds(ctx, op).map((group) => fc.oneof(...Object.values(group))));
  return fc.tuple(validRequest(ctx, op), fc.array(mutation, { minLength: 1, maxLength: 2 })).map(([r0, ms]) => applied(r0, ms));
}

/** A valid request of `op` with one hostile change of the named kind (mutationKinds). */
export function hostileRequestOfKind(ctx: FuzzContext, op: FuzzOperation, kind: string): fc.Arbitrary<FuzzRequest> {
  const mutation = mutationKinds(ctx, op).find((group) => kind in group)?.[kind];
  if (!mutation) throw new Error(`no hostile change "${kind}" for ${op.operationId}`);
  return fc.tuple(validRequest(ctx, op), mutation).map(([r0, m]) => applied(r0, [m]));
}
