import fc from 'fast-check';
import { hostileText, invalidJson, oddAuthorization, oddMemberName, oddRange, rawTargetBytes, wrongContentType } from './hostile-values';
import { paramValue, percentEncode, withJsonBody, type FuzzContext, type FuzzRequest } from './requests';
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
function queryMutations(ctx: FuzzContext, r0: FuzzRequest): fc.Arbitrary<Mutation> {
  const params = r0.op.params.filter((p) => p.in === 'query');
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
  return fc.oneof(
    fc.tuple(name, hostileText).map(([n, v]): Mutation => (r) => ({
      ...copy(r, `query ${n}=hostile`),
      query: [...r.query.filter((q) => !q.startsWith(`${n}=`)), `${n}=${percentEncode(v)}`],
    })),
    fc
      .tuple(name, rawTargetBytes)
      .map(([n, v]): Mutation => (r) => ({ ...copy(r, `query ${n} raw bytes`), query: [...r.query, `${n}=${v}`] })),
    repeated,
    fc
      .tuple(name, fc.constantFrom('[]', '[0]', '[a]', '.x', '[__proto__]'))
      .map(([n, suffix]): Mutation => (r) => ({ ...copy(r, `query ${n}${suffix}`), query: [...r.query, `${n}${suffix}=1`] })),
    fc.tuple(oddMemberName, fc.constantFrom('x', '1', '')).map(([n, v]): Mutation => (r) => ({
      ...copy(r, `unknown query ${JSON.stringify(n).slice(0, 20)}`),
      query: [...r.query, `${percentEncode(n)}=${v}`],
    })),
    fc
      .constantFrom('&&', '=x', 'limit', '&', '?', 'a=b=c')
      .map((piece): Mutation => (r) => ({ ...copy(r, `query piece ${piece}`), query: [...r.query, piece] })),
  );
}

/** Changes to a path parameter: hostile, raw, overlong or empty ids. */
function pathMutations(r0: FuzzRequest): fc.Arbitrary<Mutation> {
  const params = r0.op.params.filter((p) => p.in === 'path').map((p) => p.name);
  if (!params.length) return fc.constant((r) => ({ ...copy(r, 'trailing slash'), path: `${r.path}/` }));
  const replace = (r: FuzzRequest, name: string, bytes: string, label: string): FuzzRequest => {
    let path = r.op.template;
    for (const p of params)
      path = path.replace(`{${p}}`, p === name ? bytes : (r.path.split('/')[r.op.template.split('/').indexOf(`{${p}}`)] ?? 'x'));
    return { ...copy(r, label), path };
  };
  const name = fc.constantFrom(...params);
  return fc.oneof(
    fc.tuple(name, hostileText).map(
      ([n, v]): Mutation =>
        (r) =>
          replace(r, n, percentEncode(v) || '%20', `path ${n}=hostile`),
    ),
    fc.tuple(name, rawTargetBytes).map(
      ([n, v]): Mutation =>
        (r) =>
          replace(r, n, v, `path ${n} raw bytes`),
    ),
    fc.tuple(name, fc.integer({ min: 65, max: 9000 })).map(
      ([n, len]): Mutation =>
        (r) =>
          replace(r, n, `call_${'a'.repeat(len)}`, `path ${n} overlong`),
    ),
  );
}

/** Changes to headers: odd Authorization (also repeated, also missing), odd Range, odd content types. */
function headerMutations(ctx: FuzzContext): fc.Arbitrary<Mutation> {
  return fc.oneof(
    oddAuthorization(ctx.key).map(
      (v): Mutation =>
        (r) =>
          setHeader(copy(r, 'odd authorization'), 'Authorization', v),
    ),
    oddAuthorization(ctx.key).map((v): Mutation => (r) => ({
      ...copy(r, 'two authorization headers'),
      headers: [...r.headers, ['authorization', v]],
    })),
    fc.constant<Mutation>((r) => ({
      ...copy(r, 'no authorization'),
      headers: r.headers.filter(([n]) => n.toLowerCase() !== 'authorization'),
    })),
    oddRange.map(
      (v): Mutation =>
        (r) =>
          setHeader(copy(r, 'odd range'), 'Range', v),
    ),
    fc.constant<Mutation>((r) => ({ ...copy(r, 'two ranges'), headers: [...r.headers, ['Range', 'bytes=0-1'], ['Range', 'bytes=2-3']] })),
    wrongContentType.map(
      (v): Mutation =>
        (r) =>
          setHeader(copy(r, `content-type ${v}`), 'Content-Type', v),
    ),
  );
}

/** Changes to the body: invalid JSON, invalid UTF-8, 1 MB, wrong member types, unknown and prototype members, wrong types. */
function bodyMutations(ctx: FuzzContext, r0: FuzzRequest): fc.Arbitrary<Mutation> {
  const names = Object.keys(r0.op.body?.properties ?? { status: 1 });
  const valid = r0.op.body ? schemaValue(ctx.doc, r0.op.body) : fc.constant({});
  const member = fc.oneof(fc.constantFrom(...names), oddMemberName);
  const body =
    (label: string, text: string | Buffer, type?: string): Mutation =>
    (r) =>
      withJsonBody(copy(r, label), typeof text === 'string' ? Buffer.from(text, 'utf8') : text, type);
  return fc.oneof(
    invalidJson.map((text) => body('invalid json', text)),
    fc
      .tuple(member, fc.jsonValue({ maxDepth: 3 }))
      .map(([n, v]) => body(`member ${JSON.stringify(n).slice(0, 20)} any json`, objectText([[n, v]]))),
    fc.tuple(member, hostileText).map(([n, v]) => body(`member ${JSON.stringify(n).slice(0, 20)} hostile text`, objectText([[n, v]]))),
    fc
      .tuple(valid, oddMemberName, fc.jsonValue({ maxDepth: 2 }))
      .map(([v, n, x]) => body('valid plus odd member', objectText([...Object.entries(v as object), [n, x]]))),
    fc
      .tuple(fc.constantFrom(...names), fc.constantFrom('caf\xe9', '\xff\xfe', '\xc3(', '\xed\xa0\x80', '\xf4\x90\x80\x80'))
      .map(([n, bad]) => body('invalid utf-8', Buffer.concat([Buffer.from(`{"${n}":"`), Buffer.from(bad, 'latin1'), Buffer.from('"}')]))),
    fc
      .tuple(fc.constantFrom(...names), fc.constantFrom('\\ud800', 'a\\udc00b', '\\u0000', '\\u001f'))
      .map(([n, esc]) => body(`escape ${esc}`, `{"${n}":"${esc}"}`)),
    fc.constantFrom(...names).map((n) => body('1 MB body', `{"${n}":"${'a'.repeat(1024 * 1024)}"}`)),
    fc.constant(body('1 MB of bytes', Buffer.alloc(1024 * 1024, 0x7b))),
    fc.tuple(valid, wrongContentType).map(([v, type]) => body(`json as ${type}`, JSON.stringify(v), type)),
    fc
      .tuple(fc.constantFrom(...names), fc.constantFrom('contacted', 'signed'))
      .map(([n, v]) => body('duplicate member', `{"${n}":"${v}","${n}":"rejected"}`)),
  );
}

/** A valid request with one hostile change (sometimes two) applied. */
export function hostileRequest(ctx: FuzzContext, base: fc.Arbitrary<FuzzRequest>): fc.Arbitrary<FuzzRequest> {
  return base.chain((r0) => {
    const mutation = fc.oneof(queryMutations(ctx, r0), pathMutations(r0), headerMutations(ctx), bodyMutations(ctx, r0));
    return fc.array(mutation, { minLength: 1, maxLength: 2 }).map((ms) =>
      ms.reduce((r, m) => {
        const next = m(r);
        return { ...next, label: r.label === 'valid' ? next.label : `${r.label} + ${next.label}` };
      }, r0),
    );
  });
}
