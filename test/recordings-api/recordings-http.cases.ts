import Fastify from 'fastify';
import { keyed, linkToken, NO_BODY } from '../../src/common/http/access.decorators';
import { ROUTE_DECLARATION, type RouteDeclaration } from '../../src/common/http/route-declaration';
import { configureRecordingsHttp } from '../../src/recordings';

/** What @Endpoint puts in a route's config: the hook reads the link access from it, never the URL. */
const declared = (access: RouteDeclaration['access']) => ({
  config: { [ROUTE_DECLARATION]: { access, body: NO_BODY, params: {}, query: 'none', credentialQuery: [] } satisfies RouteDeclaration },
});

/**
 * The app has no CORS policy today, so the main suite proves the absence of
 * cross-origin headers on recording links. This proves they stay absent if a
 * policy is added later: the hook strips whatever an earlier hook set, on the
 * route whose declaration says its credential is a link token.
 *
 * A unit of the recordings hook on a bare Fastify with stub routes, not the
 * service: app.inject here reaches no documented operation, so it is not
 * checked against the OpenAPI document (test/support/conformance.ts).
 */
describe('recording links and a CORS policy added later', () => {
  const app = Fastify();
  beforeAll(async () => {
    app.addHook('onRequest', async (_req, reply) => {
      reply.header('access-control-allow-origin', '*').header('Access-Control-Expose-Headers', 'content-range');
    });
    configureRecordingsHttp(app);
    app.get('/v1/recordings/:token', declared(linkToken('token')), async (_req, reply) => reply.code(404).send({ code: 'not_found' }));
    app.get('/v1/calls/:call_id/recording', declared(keyed('calls:recording')), async () => ({ ok: true }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('strips every Access-Control-* header from the link route, errors included', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/recordings/abc', headers: { origin: 'https://evil.example' } });
    expect(r.statusCode).toBe(404);
    expect(Object.keys(r.headers).filter((h) => h.toLowerCase().startsWith('access-control-'))).toEqual([]);
  });

  it('leaves other routes to the policy', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/calls/c1/recording', headers: { origin: 'https://evil.example' } });
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });
});
