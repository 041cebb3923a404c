import type { OpenAPIObject } from '@nestjs/swagger';

/** The members of a JSON Schema this reads; the document's schemas are plain JSON. */
interface Schema {
  $ref?: unknown;
  allOf?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  type?: unknown;
  properties?: Record<string, Schema>;
  example?: unknown;
  examples?: unknown;
  items?: Schema;
}

interface MediaObject {
  schema?: Schema;
  example?: unknown;
  examples?: unknown;
}

interface ResponseObject {
  content?: Record<string, MediaObject>;
}
// Each $ref, allOf, anyOf and property is a level; a cycle stops here.
const MAX_DEPTH = 40;

/** An example value built from the examples the schema's own properties declare (their one source). */
function exampleOf(doc: OpenAPIObject, schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > MAX_DEPTH) return undefined;
  if (typeof schema.$ref === 'string') return exampleOf(doc, doc.components?.schemas?.[schema.$ref.split('/').pop()!] as Schema, depth + 1);
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...(schema.allOf as Schema[]).map((s) => exampleOf(doc, s, depth + 1) ?? {}));
  }
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) return exampleOf(doc, variants.find((v) => v.type !== 'null') ?? variants[0], depth + 1);
  // An object is composed from its properties (a whole-object example written by hand can fall behind them).
  if (schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(schema.properties)) {
      const value = exampleOf(doc, prop, depth + 1);
      if (value !== undefined) out[name] = value;
    }
    return out;
  }
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  const types: unknown[] = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  if (types.includes('array')) {
    const item = exampleOf(doc, schema.items, depth + 1);
    return item === undefined ? [] : [item];
  }
  if (types.includes('object')) return {};
  return undefined;
}

/**
 * Gives every JSON success response an example of its own, composed from the
 * property examples of its schema, so Swagger UI and generated docs show a
 * whole answer per status (error statuses carry hand-written examples).
 */
export function documentResponseExamples(doc: OpenAPIObject): void {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item as Record<string, { responses?: Record<string, ResponseObject> } | undefined>)) {
      for (const [status, response] of Object.entries(op?.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (!type.includes('json') || media.example !== undefined || media.examples) continue;
          const example = exampleOf(doc, media.schema);
          if (example !== undefined) media.example = example;
        }
      }
    }
  }
}
