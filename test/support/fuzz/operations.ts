/**
 * The public operations of the served OpenAPI document, in the shape the fuzz
 * generates requests from: a route documented tomorrow is fuzzed the same day.
 */
import fc from 'fast-check';

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
  /** The pipeline's routes (INTERNAL_API_TOKEN), which the document leaves out (internalOperations). */
  internal?: boolean;
  /** A body the schema cannot make (a call document, audio): its content type and valid bytes. */
  rawBody?: { contentType: string; valid: fc.Arbitrary<Buffer> };
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

const INTERNAL_IDS: FuzzParam[] = [
  { name: 'org_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
  { name: 'call_id', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,40}$' } },
];

/**
 * The receptionist pipeline's routes, which the public document leaves out, in the same shape: a call document (the
 * call id from the path), a recording (audio/ogg) and its removal. The member names of the call document are its
 * body's schema, so the body changes name real members; a valid body is `callDocument` or `audio`.
 */
export function internalOperations(callDocument: fc.Arbitrary<Record<string, unknown>>, audio: Buffer): FuzzOperation[] {
  const base = { params: INTERNAL_IDS, keyed: false, testModeOnly: false, internal: true };
  const template = '/internal/v1/orgs/{org_id}/calls/{call_id}';
  return [
    {
      ...base,
      operationId: 'internal putCall',
      method: 'PUT',
      template,
      body: { type: 'object', properties: { call_id: { type: 'string' }, started_at: { type: 'string' }, from: { type: 'string' } } },
      rawBody: { contentType: 'application/json', valid: callDocument.map((doc) => Buffer.from(JSON.stringify(doc), 'utf8')) },
    },
    {
      ...base,
      operationId: 'internal putRecording',
      method: 'PUT',
      template: `${template}/recording`,
      rawBody: { contentType: 'audio/ogg', valid: fc.constant(audio) },
    },
    { ...base, operationId: 'internal removeRecording', method: 'DELETE', template: `${template}/recording` },
  ];
}
