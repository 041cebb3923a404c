import { undocumentedSchemas } from '../support/openapi-walk';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

let t: TestApp;
let doc: Record<string, unknown>;

beforeAll(async () => {
  // BASE_URL unset, as on a fresh start: the document's server must then be relative.
  t = await sharedTestApp({ BASE_URL: '' });
  const r = await t.get<Record<string, unknown>>('/v1/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
});

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

describe('the security scheme, the tags and the server', () => {
  it('no security scheme claims a JWT: keys are opaque svc_live_ strings', () => {
    const schemes = Object.entries<any>((doc.components as any).securitySchemes ?? {});
    expect(schemes.length).toBeGreaterThan(0);
    for (const [name, scheme] of schemes) {
      expect([name, scheme.bearerFormat]).not.toEqual([name, 'JWT']);
      expect([name, String(scheme.bearerFormat)]).not.toEqual([name, expect.stringMatching(/jwt/i)]);
    }
  });

  it('top-level tags are listed, each described, and every tag an operation uses is among them', () => {
    const tags = doc.tags as { name: string; description?: string }[];
    expect(Array.isArray(tags) && tags.length > 0).toBe(true);
    for (const tag of tags) expect(tag.description).toEqual(expect.stringMatching(/\S/));
    const used = new Set<string>();
    for (const section of [doc.paths, doc.webhooks] as Record<string, any>[])
      for (const item of Object.values(section)) for (const op of Object.values<any>(item)) for (const tag of op.tags ?? []) used.add(tag);
    expect([...used].filter((name) => !tags.some((tag) => tag.name === name))).toEqual([]);
  });

  it('with BASE_URL unset the server is relative, so Swagger UI works from any host name', () => {
    const servers = doc.servers as { url: string }[];
    expect(servers[0].url).toMatch(/^\//);
    expect(servers[0].url).not.toMatch(/^[a-z][a-z0-9+.-]*:/i);
  });
});
