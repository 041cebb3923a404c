/**
 * Visits every schema-bearing node of an OpenAPI document with its JSON
 * pointer and, where it is a property, its name. Example, default and enum
 * values are data, not schemas, and are not entered.
 */
type Json = Record<string, any>;

export interface Visit {
  pointer: string;
  node: Json;
  /** The property name when the node is a member of a `properties` map. */
  property?: string;
}

const VALUES = new Set(['example', 'examples', 'default', 'const', 'enum', 'x-extensible-enum']);
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

export function walkDocument(doc: Json, visit: (v: Visit) => void, at = '#', property?: string): void {
  if (Array.isArray(doc)) return doc.forEach((n, i) => walkDocument(n as Json, visit, `${at}/${i}`));
  if (typeof doc !== 'object' || doc === null) return;
  visit({ pointer: at, node: doc, property });
  for (const [key, value] of Object.entries(doc)) {
    if (VALUES.has(key)) continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      for (const [name, member] of Object.entries(value)) walkDocument(member as Json, visit, `${at}/properties/${escape(name)}`, name);
    } else {
      walkDocument(value as Json, visit, `${at}/${escape(key)}`);
    }
  }
}

export const typesOf = (s: Json): string[] => (Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : []);
