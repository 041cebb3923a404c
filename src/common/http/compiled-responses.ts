import type { OpenAPIObject } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';

/**
 * Routes whose 200 answer Fastify serialises with a function compiled from the
 * response's schema in the OpenAPI document (fast-json-stringify) instead of
 * JSON.stringify: the hot list routes, where serialisation is a large share of
 * the CPU per request. The schema is the document's own, so the two cannot
 * disagree; the compiled function writes only the properties the schema names,
 * which is why each DTO listed here must describe every field exactly.
 */
const COMPILED_RESPONSES: Record<string, string> = {
  'GET /v1/calls': 'CallListDto',
};

/** Attaches the schemas; must run before Nest registers its routes (before init or listen). */
export function compileResponsesFromDocument(fastify: FastifyInstance, doc: OpenAPIObject): void {
  const schemas = doc.components?.schemas ?? {};
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const name = methods.map((m) => COMPILED_RESPONSES[`${m} ${route.url}`]).find(Boolean);
    if (!name || !schemas[name]) return;
    // The named schema at the root, with the components it reaches beside it so its $refs resolve
    // (only those: compiling is a start-up cost of every process).
    route.schema = { ...route.schema, response: { 200: { ...schemas[name], components: { schemas: reachable(schemas, name) } } } };
  });
}

/** The named schema and every schema its $refs lead to, transitively. */
function reachable(all: Record<string, unknown>, name: string, out: Record<string, unknown> = {}): Record<string, unknown> {
  if (name in out || !(name in all)) return out;
  out[name] = all[name];
  JSON.stringify(all[name], (key, value: unknown) => {
    if (key === '$ref' && typeof value === 'string') reachable(all, value.split('/').pop()!, out);
    return value;
  });
  return out;
}
