/**
 * The document as the conformance checks read it: every object schema that
 * lists its properties refuses any other member (`unevaluatedProperties:
 * false`), so an answer carrying an undocumented field fails the test that
 * received it. The served document stays as it is: clients must keep
 * ignoring members added later, which the spec allows.
 *
 * Left open: free-form maps (a schema that sets `additionalProperties` or
 * `unevaluatedProperties` itself, such as `routing` or an unknown event's
 * `data`), and the inline members of an `allOf`, whose holder is closed
 * instead (a closed member would refuse its siblings' properties).
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Values, not schemas: never rewritten (an example must stay the example it is). */
const VALUES = new Set(['example', 'examples', 'default', 'const', 'enum', 'x-extensible-enum']);

function listsProperties(s: Json): boolean {
  if (isObject(s.properties)) return true;
  return Array.isArray(s.allOf) && s.allOf.some((m) => isObject(m) && isObject(m.properties));
}

function close(node: unknown, allOfMember: boolean): void {
  if (Array.isArray(node)) return node.forEach((n) => close(n, false));
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (VALUES.has(key)) continue;
    if (key === 'allOf' && Array.isArray(value)) value.forEach((m) => close(m, true));
    else close(value, false);
  }
  if (allOfMember || !listsProperties(node)) return;
  if (!('additionalProperties' in node) && !('unevaluatedProperties' in node)) node.unevaluatedProperties = false;
}

/** A copy of `doc` whose object schemas refuse undocumented members. */
export function closedSchemas<T>(doc: T): T {
  const copy = structuredClone(doc);
  close(copy, false);
  return copy;
}
