import { undocumentedSchemas } from './support/openapi-walk';
import { startTestApp, type TestApp } from './support/test-app';

let t: TestApp;
let doc: Record<string, unknown>;

beforeAll(async () => {
  t = await startTestApp();
  const r = await t.get<Record<string, unknown>>('/v1/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
});
afterAll(() => t.close());

describe('the served document describes every schema and property', () => {
  it('every status of every operation has its own example (errors written by hand, JSON successes composed)', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths as object)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
          for (const [type, media] of Object.entries<any>(response.content ?? {})) {
            // Audio bodies are bytes: their schema (format binary) is the whole story.
            if (type.startsWith('audio/')) continue;
            if (media.example === undefined && !media.examples) missing.push(`${method.toUpperCase()} ${path} ${status} ${type}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('each schema and property, in components and inline, has a description and, where it is a value, an example', () => {
    expect(undocumentedSchemas(doc)).toEqual([]);
  });

  it('the walk finds what is missing (a property without description or example, inside an inline object)', () => {
    const sample = {
      components: { schemas: { Thing: { type: 'object', description: 'A thing.', properties: { bare: { type: 'string' } } } } },
      paths: {
        '/x': {
          get: {
            parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
            responses: {
              '200': { content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'integer' } } } } } },
            },
          },
        },
      },
    };
    expect(undocumentedSchemas(sample)).toEqual([
      'Thing.bare: no description',
      'Thing.bare: no example',
      'GET /x parameter q: no description',
      'GET /x response 200 application/json.n: no description',
      'GET /x response 200 application/json.n: no example',
    ]);
  });
});
