import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { closedSchemas } from './closed-schemas';
import type { TestApp } from './test-app';

/**
 * The document an app serves, with what the document tests need to read it:
 * a validator for the schema at any JSON pointer (read closed, as the
 * conformance check reads it) and the list of its operations.
 */
type Json = Record<string, any>;

export interface ServedDocument {
  doc: Json;
  /** Problems of `value` against the schema at `pointer` (`#/...`); empty when it fits. */
  validateAt(pointer: string, value: unknown): string[];
  /** The same against the document exactly as served (objects open unless it closes them): what a client's validator sees. */
  validateAsServed(pointer: string, value: unknown): string[];
  /** Every operation of the paths section: its JSON pointer, `METHOD /path`, and the operation. */
  operations(): { at: string; label: string; op: Json }[];
}

export const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

export async function servedDocument(t: TestApp): Promise<ServedDocument> {
  const doc = (await t.get<Json>('/v1/openapi.json')).body;
  const validatorOf = (schema: Json) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (a: unknown) => void)(ajv);
    ajv.addFormat('binary', true);
    ajv.addSchema(schema, 'doc');
    return (pointer: string, value: unknown) => {
      const validate = ajv.getSchema(`doc${pointer}`);
      if (!validate) return [`${pointer}: no schema`];
      return validate(value) ? [] : (validate.errors ?? []).map((e) => `${pointer} ${e.instancePath} ${e.message}`);
    };
  };
  return {
    doc,
    validateAt: validatorOf(closedSchemas(doc)),
    validateAsServed: validatorOf(structuredClone(doc)),
    operations: () =>
      Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
        Object.entries<Json>(item).map(([method, op]) => ({
          at: `#/paths/${escapePointer(path)}/${method}`,
          label: `${method.toUpperCase()} ${path}`,
          op,
        })),
      ),
  };
}
