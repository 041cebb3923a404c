/**
 * The public operations of the served OpenAPI document, in the shape the fuzz
 * generates requests from: a route documented tomorrow is fuzzed the same day.
 */
type Json = Record<string, any>;

export interface FuzzParam {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Json;
}

export interface FuzzOperation {
  operationId: string;
  method: string;
  template: string;
  params: FuzzParam[];
  /** The JSON body schema ($refs resolved at the top), when the operation takes a body. */
  body?: Json;
  /** Whether it takes an API key. */
  keyed: boolean;
  /** Whether it takes only a test key (x-test-mode-only: the test helpers). */
  testModeOnly: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export function resolveRef(doc: Json, schema: Json | undefined): Json {
  if (!schema?.$ref) return schema ?? {};
  return (schema.$ref as string)
    .slice(2)
    .split('/')
    .reduce<Json>((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Every operation outside /internal, with its parameters and body schema. */
export function publicOperations(doc: Json): FuzzOperation[] {
  return Object.entries<Json>(doc.paths)
    .filter(([template]) => !template.startsWith('/internal/'))
    .flatMap(([template, item]) =>
      METHODS.filter((m) => item[m]).map((method) => {
        const op = item[method] as Json;
        const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => resolveRef(doc, p));
        return {
          operationId: op.operationId as string,
          method: method.toUpperCase(),
          template,
          params: params.map((p) => ({ name: p.name, in: p.in, required: !!p.required, schema: resolveRef(doc, p.schema) })),
          body: op.requestBody ? resolveRef(doc, resolveRef(doc, op.requestBody).content?.['application/json']?.schema) : undefined,
          keyed: (op.security ?? doc.security ?? []).some((s: Json) => Object.keys(s).length > 0),
          testModeOnly: op['x-test-mode-only'] === true,
        } satisfies FuzzOperation;
      }),
    );
}
