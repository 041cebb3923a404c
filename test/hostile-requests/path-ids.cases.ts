import { fullCallDocument, internalEnv } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { fixture, upload } from '../support/recordings';
import { sharedTestApp } from '../support/shared-app';
import { TEST_INTERNAL_TOKEN, type TestApp, type HttpResult } from '../support/test-app';

/**
 * A path id that cannot name anything (a NUL byte, invalid UTF-8, 10,000
 * characters) answers exactly what an id that does not exist answers: 404
 * not_found. PostgreSQL refuses a NUL byte in text, so these used to be 500s,
 * and Fastify answered invalid UTF-8 and long ids itself (400/414, echoing the
 * URL). Typed ids (evt_ ids, uuids) keep their documented 400 for a malformed
 * value (docs/decisions.md): there the comparison is with another malformed id.
 */
describe('path ids that cannot exist answer like unknown ids', () => {
  let t: TestApp;
  let firm: TestFirm;

  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    firm = await createFirm(t.app);
  });

  const UNUSABLE: Array<[string, string]> = [
    ['a NUL byte', 'a%00b'],
    ['a lone NUL byte', '%00'],
    ['a control character', 'x%01y'],
    ['10,000 characters', 'c'.repeat(10_000)],
  ];
  // A path that cannot be percent-decoded fails before any route is chosen: 404 on every route.
  const AUDIO = fixture('injury-caller.ogg');
  const UNDECODABLE = 'caf%E9';

  // Each route with its keyed request for a given id; `unknown` is an id that names nothing: well-formed
  // for free-form ids (404), malformed for typed ids (400 naming the parameter).
  const ROUTES: Array<{ name: string; unknown: string; send: (id: string) => Promise<HttpResult> }> = [
    { name: 'GET /v1/calls/{call_id}', unknown: 'call_unknown', send: (id) => t.get(`/v1/calls/${id}`, { key: firm.keys.read }) },
    {
      name: 'GET /v1/calls/{call_id}/transcript',
      unknown: 'call_unknown',
      send: (id) => t.get(`/v1/calls/${id}/transcript`, { key: firm.keys.read }),
    },
    {
      name: 'GET /v1/calls/{call_id}/recording',
      unknown: 'call_unknown',
      send: (id) => t.get(`/v1/calls/${id}/recording`, { key: firm.keys.read }),
    },
    {
      name: 'POST /v1/calls/{call_id}/recording-link',
      unknown: 'call_unknown',
      send: (id) => t.request('POST', `/v1/calls/${id}/recording-link`, { key: firm.keys.read }),
    },
    { name: 'GET /v1/leads/{lead_id}', unknown: 'lead_unknown', send: (id) => t.get(`/v1/leads/${id}`, { key: firm.keys.read }) },
    {
      name: 'PATCH /v1/leads/{lead_id}',
      unknown: 'lead_unknown',
      send: (id) => t.request('PATCH', `/v1/leads/${id}`, { key: firm.keys['read-update-leads'], body: { status: 'contacted' } }),
    },
    {
      name: 'GET /v1/events/{event_id}',
      unknown: 'evt_',
      send: (id) => t.get(`/v1/events/${id}`, { key: firm.keys.read }),
    },
    {
      name: 'POST /v1/webhook-endpoints/{endpoint_id}/test',
      unknown: 'not-a-uuid',
      send: (id) => t.request('POST', `/v1/webhook-endpoints/${id}/test`, { key: firm.keys.read }),
    },
    {
      name: 'POST /v1/webhook-deliveries/{delivery_id}/redeliver',
      unknown: 'not-a-uuid',
      send: (id) => t.request('POST', `/v1/webhook-deliveries/${id}/redeliver`, { key: firm.keys.read }),
    },
    { name: 'GET /v1/recordings/{token}', unknown: 'rl_unknown', send: (id) => t.get(`/v1/recordings/${id}`) },
    // The pipeline's routes: a NUL in call_id once reached the recording's statements (500, a stack at level 50).
    ...(['org_id', 'call_id'] as const).flatMap((param) => {
      const path = (id: string) =>
        param === 'org_id' ? `/internal/v1/orgs/${id}/calls/call_x` : `/internal/v1/orgs/${firm.orgId}/calls/${id}`;
      const unknown = param === 'org_id' ? '00000000-0000-4000-8000-000000000000' : 'call_unknown';
      return [
        {
          name: `PUT /internal/v1/orgs/{org_id}/calls/{call_id}/recording (${param})`,
          unknown,
          send: (id: string) => upload(t, ...((param === 'org_id' ? [id, 'call_x'] : [firm.orgId, id]) as [string, string]), AUDIO),
        },
        {
          name: `DELETE /internal/v1/orgs/{org_id}/calls/{call_id}/recording (${param})`,
          unknown,
          send: (id: string) => t.request('DELETE', `${path(id)}/recording`, { key: TEST_INTERNAL_TOKEN }),
        },
      ];
    }),
    {
      name: 'PUT /internal/v1/orgs/{org_id}/calls/{call_id} (org_id)',
      unknown: '00000000-0000-4000-8000-000000000000',
      send: (id) => t.request('PUT', `/internal/v1/orgs/${id}/calls/call_x`, { key: TEST_INTERNAL_TOKEN, body: fullCallDocument() }),
    },
    {
      // The pipeline chooses the call's id: one that is not a plain id is malformed (400 naming it), like `-x`.
      name: 'PUT /internal/v1/orgs/{org_id}/calls/{call_id} (call_id)',
      unknown: '-x',
      send: (id) => t.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/${id}`, { key: TEST_INTERNAL_TOKEN, body: fullCallDocument() }),
    },
  ];

  // What a client branches on. `detail` is for people: a path that cannot even be decoded never
  // reaches its route, so it cannot say which kind of resource was missing.
  const stable = (r: HttpResult) => {
    const { request_id: _requestId, detail: _detail, ...rest } = r.body as Record<string, unknown>;
    return { status: r.status, type: r.headers.get('content-type'), body: rest };
  };

  describe.each(ROUTES)('$name', (route) => {
    it.each(UNUSABLE)('with %s answers like an unknown id', async (_what, id) => {
      const expected = stable(await route.send(route.unknown));
      const typed = route.unknown === 'evt_' || route.unknown === 'not-a-uuid' || route.unknown === '-x';
      expect(expected.status).toBe(typed ? 400 : 404);
      expect(expected.body).toMatchObject({ code: typed ? 'invalid_request' : 'not_found' });
      const refused = await route.send(id);
      expect(stable(refused)).toEqual(expected);
      expect(refused.text).not.toContain(id.slice(0, 40));
    });

    it('with invalid UTF-8 answers 404 not_found without echoing the path', async () => {
      const r = await route.send(UNDECODABLE);
      expect(r.status).toBe(404);
      expect(r.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(r.body).toMatchObject({ status: 404, code: 'not_found', type: 'urn:receptionist-api:error:not_found' });
      expect(r.text).not.toContain(UNDECODABLE);
    });
  });
});
