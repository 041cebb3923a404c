import SwaggerParser from '@apidevtools/swagger-parser';
import { ReceptionistService } from '../../src/receptionist';
import { DEMO_SETTINGS } from '../../src/demo';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import { TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';

describe('foundation', () => {
  let t: TestApp;
  let firm: TestFirm;
  beforeAll(async () => {
    t = await sharedTestApp();
    firm = await createFirm(t.app);
  });

  it('GET /v1/health needs no key and reads no firm data', async () => {
    const r = await t.get('/v1/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true });
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('readiness lives outside /v1 and pings the database', async () => {
    const r = await t.get('/health/ready');
    expect(r.status).toBe(200);
    expect(r.body.info.database.status).toBe('up');
    // How durable a commit is: the test cluster has no standby, and publication waits for none.
    expect(r.body.info.replication).toMatchObject({ status: 'up', synchronous: false, standbys: 0, events_wait_for_standby: false });
  });

  it('an unknown path answers 404 as a problem document', async () => {
    const r = await t.get('/v1/nothing-here', { key: firm.keys.read });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body).toMatchObject({
      status: 404,
      code: 'not_found',
      type: 'urn:receptionist-api:error:not_found',
      title: expect.any(String),
      detail: expect.any(String),
    });
  });

  it('refuses unknown query parameters, naming them', async () => {
    const r = await t.get('/v1/account', { key: firm.keys.read, query: { verbose: 'true' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', param: 'verbose' });
  });

  describe('GET /v1/account', () => {
    it('returns every field, with the calling key', async () => {
      const r = await t.get('/v1/account', { key: firm.keys['read-no-transcripts'] });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(
        ['api_key', 'billing_status', 'has_org', 'next_step', 'number', 'org', 'plan', 'setup', 'trial_days_left', 'trial_ends_at'].sort(),
      );
      expect(r.body.has_org).toBe(true);
      expect(r.body.org).toEqual({
        id: firm.orgId,
        slug: firm.slug,
        display_name: `Firm ${firm.slug}`,
        status: 'onboarding',
        timezone: 'America/Chicago',
        vertical: 'law',
      });
      expect(r.body.api_key).toEqual({
        id: firm.keyIds['read-no-transcripts'],
        name: 'test read-no-transcripts',
        prefix: firm.keys['read-no-transcripts'].slice(9, 17),
        last4: firm.keys['read-no-transcripts'].slice(-4),
        scopes: ['org:read', 'receptionist:read', 'calls:read', 'leads:read', 'webhooks:read', 'webhooks:test'],
        expires_at: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        livemode: true,
      });
    });
  });

  describe('GET /v1/receptionist', () => {
    it('answers 409 not_published before the first publish', async () => {
      const unpublished = await createFirm(t.app, { publish: false });
      const r = await t.get('/v1/receptionist', { key: unpublished.keys.read });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('not_published');
    });

    it('serves the published settings with version, published_at and draft_pending', async () => {
      const f = await createFirm(t.app, { publish: false });
      const first = await t.app.get(ReceptionistService).publish(f.orgId, DEMO_SETTINGS);
      const r = await t.get('/v1/receptionist', { key: f.keys['read-no-transcripts'] });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ...DEMO_SETTINGS, version: 1, published_at: first.published_at, draft_pending: false });
      expect(Object.keys(r.body).sort()).toEqual(
        [
          'agent_name',
          'profile',
          'hours',
          'team',
          'routing',
          'alert_emails',
          'capture_email',
          'facts',
          'house_rules',
          'version',
          'published_at',
          'draft_pending',
        ].sort(),
      );
    });
  });

  describe('the internal tree', () => {
    it('answers 404 for everything when INTERNAL_API_TOKEN is unset', async () => {
      const r = await t.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/c1`, {
        body: {},
        headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}` },
      });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
    });
  });

  describe('OpenAPI', () => {
    it('serves a valid OpenAPI 3.1.0 document with every public endpoint, its scope and errors', async () => {
      const r = await t.get('/v1/openapi.json');
      expect(r.status).toBe(200);
      const doc = r.body;
      expect(doc.openapi).toBe('3.1.0');
      await SwaggerParser.validate(structuredClone(doc));
      const paths = Object.keys(doc.paths);
      expect(paths.some((p) => p.startsWith('/internal'))).toBe(false);
      expect(paths).not.toContain('/health/ready');
      expect(doc.components.securitySchemes.api_key).toMatchObject({ type: 'http', scheme: 'bearer' });
      for (const [path, item] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          // HEAD on the recording routes answers 405 to anyone, key or not.
          const isPublic =
            method === 'head' || path === '/v1/health' || path.startsWith('/v1/recordings/') || path.startsWith('/v1/openapi');
          if (!isPublic) {
            // A keyed operation names its scope, or takes only a test key (the test helpers) and needs none.
            const needs = op['x-required-scope'] ?? (op['x-test-mode-only'] === true ? 'a test key' : undefined);
            expect({ path, method, needs }).toEqual({ path, method, needs: expect.any(String) });
            expect(op.security).toEqual([{ api_key: [] }]);
            expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '503']));
            expect(op.responses['401'].content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problem');
          }
        }
      }
      expect(doc.paths['/v1/account'].get['x-required-scope']).toBe('org:read');
      expect(doc.paths['/v1/receptionist'].get.responses['409'].content['application/problem+json'].schema.$ref).toBe(
        '#/components/schemas/Problem',
      );
      expect(doc.components.schemas.Problem.properties.code.enum).toEqual(
        expect.arrayContaining([
          'invalid_request',
          'unauthorized',
          'insufficient_scope',
          'not_found',
          'rate_limited',
          'service_unavailable',
        ]),
      );
    });

    it('serves Swagger UI at /docs', async () => {
      const r = await t.get('/docs');
      expect(r.status).toBe(200);
      expect(r.text).toContain('swagger-ui');
    });
  });
});
