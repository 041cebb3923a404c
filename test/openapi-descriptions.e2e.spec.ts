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
