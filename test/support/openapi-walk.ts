/**
 * Finds every schema and property of an OpenAPI document that a reader of the
 * document (or of a generated client) would meet without a description, or,
 * for a value they would have to fill in or parse, without an example.
 */
type Schema = Record<string, unknown>;

const COMBINATORS = ['allOf', 'oneOf', 'anyOf'] as const;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : []);

/** A reference, or a nullable wrapper around one (`allOf`/`oneOf` of a $ref and null): described where it points. */
function isReference(s: Schema): boolean {
  if (typeof s.$ref === 'string') return true;
  return COMBINATORS.some((k) => {
    const parts = s[k];
    return Array.isArray(parts) && parts.some((p) => isObject(p) && typeof p.$ref === 'string');
  });
}

/** An object, or an array of objects or references: its members carry the examples. */
function isStructured(s: Schema): boolean {
  if (typesOf(s).includes('object') || isObject(s.properties)) return true;
  if (typesOf(s).includes('array') && isObject(s.items)) return isReference(s.items) || isStructured(s.items);
  return false;
}

const hasExample = (s: Schema) => s.example !== undefined || Array.isArray(s.examples);

/** Problems of one schema at `where`; `needsDescription` is false where the owner (a parameter) carries it. */
export function schemaProblems(s: Schema, where: string, needsDescription = true, needsExample = true): string[] {
  const out: string[] = [];
  if (isReference(s) && typeof s.$ref === 'string') return out;
  if (needsDescription && typeof s.description !== 'string') out.push(`${where}: no description`);
  if (needsExample && !isReference(s) && !isStructured(s) && !hasExample(s)) out.push(`${where}: no example`);
  if (isObject(s.properties)) {
    for (const [name, p] of Object.entries(s.properties)) if (isObject(p)) out.push(...schemaProblems(p, `${where}.${name}`));
  }
  if (isObject(s.items) && !isReference(s.items)) out.push(...schemaProblems(s.items, `${where}[]`, false, false));
  if (isObject(s.additionalProperties) && !isReference(s.additionalProperties)) {
    out.push(...schemaProblems(s.additionalProperties, `${where}{}`));
  }
  for (const k of COMBINATORS) {
    const parts = s[k];
    if (!Array.isArray(parts)) continue;
    parts.forEach((p, i) => {
      if (isObject(p) && isObject(p.properties)) out.push(...schemaProblems(p, `${where}.${k}[${i}]`, false, false));
    });
  }
  return out;
}

/**
 * Inline schemas of request bodies and responses, and parameters, of each operation (paths and webhooks).
 * A parameter needs a description but no example: Swagger UI's "Try it out" fills every parameter from
 * its example, so examples on optional filters would send them all at once.
 */
function operationProblems(op: Schema, where: string): string[] {
  const out: string[] = [];
  for (const param of Array.isArray(op.parameters) ? (op.parameters as Schema[]) : []) {
    const s = isObject(param.schema) ? param.schema : {};
    const at = `${where} parameter ${String(param.name)}`;
    if (typeof param.description !== 'string' && typeof s.description !== 'string') out.push(`${at}: no description`);
  }
  const bodies: [string, unknown][] = [['request body', op.requestBody]];
  if (isObject(op.responses)) for (const [status, r] of Object.entries(op.responses)) bodies.push([`response ${status}`, r]);
  for (const [label, body] of bodies) {
    if (!isObject(body) || !isObject(body.content)) continue;
    for (const [type, media] of Object.entries(body.content)) {
      if (isObject(media) && isObject(media.schema) && !isReference(media.schema)) {
        // The body's own description is the response's; only its members need their own.
        out.push(...schemaProblems(media.schema, `${where} ${label} ${type}`, false, false));
      }
    }
  }
  return out;
}

export function undocumentedSchemas(doc: Schema): string[] {
  const out: string[] = [];
  const components = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  for (const [name, s] of Object.entries(components)) if (isObject(s)) out.push(...schemaProblems(s, name));
  for (const section of ['paths', 'webhooks'] as const) {
    const entries = isObject(doc[section]) ? doc[section] : {};
    for (const [path, item] of Object.entries(entries)) {
      if (!isObject(item)) continue;
      for (const [method, op] of Object.entries(item))
        if (isObject(op)) out.push(...operationProblems(op, `${method.toUpperCase()} ${path}`));
    }
  }
  return out;
}
