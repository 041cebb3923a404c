import type { FastifyInstance } from 'fastify';
import { registeredRoutes, type RegisteredRoute } from '../../src/common/http/route-table';
import { servedDocument } from '../support/served-document';
import { sharedTestApp } from '../support/shared-app';
import { TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * A method a path does not have answers 405 with `Allow` listing the methods
 * it has, as problem+json with a code; a path no route has stays 404. Cases
 * come from the routes the running app registered, so a route added
 * tomorrow is covered too.
 */
describe('a method a path does not have: 405 with Allow; an unknown path: 404', () => {
  let t: TestApp;
  let routes: readonly RegisteredRoute[];

  beforeAll(async () => {
    t = await sharedTestApp({ INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN });
    routes = registeredRoutes(t.app.getHttpAdapter().getInstance() as FastifyInstance);
  });

  /** A template as a pattern of its own (not the router's): `:name` one segment, `*` the rest (not nothing). */
  const pattern = (url: string) =>
    new RegExp(
      `^${url
        .replace(/[.+?^$()|[\]\\]/g, '\\$&')
        .replace(/:\w+/g, '[^/]+')
        .replace('*', '.+')}$`,
    );
  /**
   * Each route template's path filled in once, with the methods some route answers there (a route that only answers
   * 405 serves nothing): Swagger UI's files are served by their own GET routes and by the tree's HEAD route.
   */
  const paths = () => {
    const urls = [...new Set(routes.map((r) => r.url))];
    return urls.map((url) => {
      const path = url.replace(/:(\w+)/g, 'c1').replace('*', 'swagger-ui.css');
      const served = routes.filter((r) => !r.declaration?.refusesMethod && pattern(r.url).test(path)).map((r) => r.method);
      return { url, path, allow: METHODS.filter((m) => served.includes(m)) };
    });
  };

  it('every other method on every path answers 405, Allow listing the path’s methods (HEAD on a GET route included)', async () => {
    expect(paths().length).toBeGreaterThanOrEqual(20);
    const wrong: string[] = [];
    let asked = 0;
    for (const { url, path, allow } of paths()) {
      for (const method of METHODS.filter((m) => !allow.includes(m))) {
        asked++;
        const r = await t.request(method, path);
        const seen = {
          status: r.status,
          allow: r.headers.get('allow'),
          type: r.headers.get('content-type'),
          code: method === 'HEAD' ? 'method_not_allowed' : r.body?.code,
          requestId: method === 'HEAD' || r.body?.request_id === r.headers.get('x-request-id'),
        };
        const expected = {
          status: 405,
          allow: allow.join(', '),
          type: 'application/problem+json; charset=utf-8',
          code: 'method_not_allowed',
          requestId: true,
        };
        if (JSON.stringify(seen) !== JSON.stringify(expected)) wrong.push(`${method} ${url}: ${JSON.stringify(seen)}`);
      }
    }
    expect(asked).toBeGreaterThanOrEqual(100);
    expect(wrong).toEqual([]);
  });

  it('names the method and the ones the path answers', async () => {
    const r = await t.request('DELETE', '/v1/leads/lead_01jd5x8m3q7k2w9n4b6c8d0f2h');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, PATCH');
    expect(r.body).toMatchObject({
      status: 405,
      code: 'method_not_allowed',
      detail: 'DELETE is not allowed on this path; it answers GET, PATCH.',
    });
    // A trailing slash names the same path, as it does for the methods it has.
    expect((await t.request('PUT', '/v1/account/')).headers.get('allow')).toBe('GET');
  });

  it('a path no route has answers 404 for every method, as before', async () => {
    const wrong: string[] = [];
    for (const path of ['/v1/nowhere', '/v1/calls/c1/nothing', '/calls', '/', '/v2/calls', '/internal/v1/nowhere']) {
      for (const method of METHODS) {
        const r = await t.request(method, path);
        if (r.status !== 404 || r.headers.has('allow') || (method !== 'HEAD' && r.body.detail !== NO_SUCH_ENDPOINT))
          wrong.push(`${method} ${path}: ${r.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the document says so once, for every path (no operation can list an answer for a method it is not)', async () => {
    const { doc } = await servedDocument(t);
    expect(doc.info.description).toMatch(/405 `method_not_allowed`[^\n]*`Allow`/);
  });
});

const NO_SUCH_ENDPOINT = 'No such endpoint. Every path starts with /v1; see /v1/openapi.json.';
