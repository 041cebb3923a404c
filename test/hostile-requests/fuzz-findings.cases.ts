import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { Conformance, recordExercised } from '../support/conformance';
import { createFirm, type TestFirm } from '../support/factories';
import { rawRequest, type RawRequest } from '../support/raw-http';
import { sharedTestApp } from '../support/shared-app';
import { type TestApp } from '../support/test-app';

/**
 * What test/fuzz.e2e.spec.ts found, each pinned by a request that does not
 * depend on the seed.
 */
describe('fuzz findings', () => {
  let t: TestApp;
  let firm: TestFirm;
  let conformance: Conformance;

  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    firm = await createFirm(t.app);
    conformance = new Conformance((await t.get('/v1/openapi.json')).body);
  });

  /** A raw exchange, checked against the served document like every request() is. */
  const send = async (r: RawRequest) => {
    const res = await rawRequest(t.baseUrl, r);
    const id = conformance.check(r.method, r.target.split('?')[0], res);
    if (id) recordExercised(id, res.status);
    return res;
  };

  // 20,000 levels overflowed the stack (a 500); the PATCH body limit is now 16 KiB, so the deepest bodies that fit are sent.
  it('a PATCH body nested thousands of levels deep answers 400 naming the depth and writes nothing', async () => {
    const leadId = (await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id as string;
    const before = await t.sql('SELECT * FROM leads WHERE lead_id = $1', [leadId]);
    for (const body of ['{"a":'.repeat(2_500) + '1' + '}'.repeat(2_500), `{"status":${'['.repeat(8_000)}${']'.repeat(8_000)}}`]) {
      const r = await send({
        method: 'PATCH',
        target: `/v1/leads/${leadId}`,
        headers: [
          ['Authorization', `Bearer ${firm.keys['read-update-leads']}`],
          ['Content-Type', 'application/json'],
        ],
        body: Buffer.from(body),
      });
      expect({ status: r.status, code: (r.body as any)?.code }).toEqual({ status: 400, code: 'invalid_request' });
      expect((r.body as any).detail).toContain('must not be nested more than 32 levels deep');
    }
    expect(await t.sql('SELECT * FROM leads WHERE lead_id = $1', [leadId])).toEqual(before);
  });

  it.each(['/v1/calls/\xff/recording', '/v1/recordings/\xc3(', '/v1/health?x=\xff'])(
    'a target with raw non-ASCII bytes (%j) answers the documented 400 problem, HEAD and health included',
    async (target) => {
      const r = await send({ method: target.startsWith('/v1/health') ? 'GET' : 'HEAD', target, headers: [] });
      expect({ status: r.status, type: r.headers.get('content-type') }).toEqual({
        status: 400,
        type: 'application/problem+json; charset=utf-8',
      });
    },
  );

  it.each(['/v1/calls/%/recording', '/v1/recordings/%zz'])(
    'HEAD %s (broken percent-encoding) answers the documented 404',
    async (target) => {
      const r = await send({ method: 'HEAD', target, headers: [] });
      expect({ status: r.status, type: r.headers.get('content-type') }).toEqual({
        status: 404,
        type: 'application/problem+json; charset=utf-8',
      });
    },
  );
});
