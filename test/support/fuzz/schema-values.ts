import fc from 'fast-check';
import { resolveRef } from './operations';

type Json = Record<string, any>;

/**
 * Values valid for a JSON schema of the document (OpenAPI 3.1, JSON Schema
 * 2020-12): enum, pattern, format, length bounds, nullable type lists,
 * objects with their required and optional members. Enough of the
 * vocabulary for the parameters and bodies the document declares; anything
 * else falls back to a short string so a new schema still gets requests.
 */
export function schemaValue(doc: Json, input: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveRef(doc, input);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  // An open enumeration's known values are valid ones (a request body taking one refuses what the service does not know yet).
  if (schema['x-extensible-enum']) return fc.constantFrom(...(schema['x-extensible-enum'] as unknown[]));
  if (schema.const !== undefined) return fc.constant(schema.const);
  const alternatives = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => schemaValue(doc, s, depth + 1)));
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type ?? (schema.properties ? 'object' : 'string')];
  return fc.oneof(...types.map((type) => valueOfType(doc, schema, type, depth)));
}

function valueOfType(doc: Json, schema: Json, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000, noNaN: true });
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(schemaValue(doc, schema.items, depth + 1), { maxLength: schema.maxItems ?? 3 });
    case 'object':
      return objectValue(doc, schema, depth);
    default:
      return stringValue(schema);
  }
}

function objectValue(doc: Json, schema: Json, depth: number): fc.Arbitrary<unknown> {
  const props = Object.entries<Json>(schema.properties ?? {});
  if (depth > 3 || !props.length) return fc.constant({});
  const members = Object.fromEntries(props.map(([name, s]) => [name, schemaValue(doc, s, depth + 1)]));
  return fc.record(members, { requiredKeys: (schema.required as string[]) ?? [] });
}

function stringValue(schema: Json): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = Math.min(schema.maxLength ?? 40, 200);
  switch (schema.format) {
    case 'date-time':
      return fc
        .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern as string)).filter((s) => s.length <= 1000);
  // Printable text, sometimes beyond ASCII (whole graphemes, so always well-formed Unicode).
  return fc
    .oneof(fc.string({ minLength, maxLength }), fc.string({ unit: 'grapheme', minLength, maxLength }))
    .filter((s) => s.length >= minLength && s.length <= maxLength);
}
