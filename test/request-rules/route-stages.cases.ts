import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { HeadFirstConnection } from '../support/head-first';
import { fixture, upload, uploadPath } from '../support/recordings';
import { sharedTestApp } from '../support/shared-app';
import { TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';
import { bigParsesDuring } from '../support/json-parse-spy';

const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

describe('the stages a route declaration drives', () => {
  let t: TestApp;
  let firm: TestFirm;
  let callId: string;
  let leadId: string;

  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    firm = await createFirm(t.app);
    callId = nextCallId();
    leadId = (await ingestOk(t, firm.orgId, callId, fullCallDocument())).lead_id as string;
    expect((await upload(t, firm.orgId, callId, fixture('injury-caller.ogg'))).status).toBe(200);
  });

  describe('an empty body with Content-Type: application/json on a POST that takes none is no body', () => {
    const EMPTY_JSON = { rawBody: '', headers: { 'content-type': 'application/json' } };
    it.each([
      ['POST /v1/webhook-endpoints/{id}/test', `/v1/webhook-endpoints/${UNKNOWN_UUID}/test`],
      ['POST /v1/webhook-deliveries/{id}/redeliver', `/v1/webhook-deliveries/${UNKNOWN_UUID}/redeliver`],
    ])('%s answers as without it', async (_name, path) => {
      const key = firm.keys.read;
      const without = await t.request('POST', path, { key });
      const empty = await t.request('POST', path, { key, ...EMPTY_JSON });
      expect({ status: empty.status, code: empty.body.code }).toEqual({ status: without.status, code: without.body.code });
      expect(empty.status).toBe(404);
    });

    it('POST /v1/calls/{id}/recording-link creates the link', async () => {
      const r = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read, ...EMPTY_JSON });
      expect(r.status).toBe(201);
      expect(r.body.url).toContain('/v1/recordings/');
    });

    it('a body that is there is still refused (413), before it is read', async () => {
      const r = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read, body: {} });
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 413, code: 'payload_too_large' });
    });
  });

  describe('Expect: 100-continue is answered only once the request is admitted', () => {
    const expecting = (auth: string | undefined, length: number, type = 'application/json'): [string, string][] => [
      ...(auth ? ([['Authorization', auth]] as [string, string][]) : []),
      ['Content-Type', type],
      ['Content-Length', String(length)],
      ['Expect', '100-continue'],
    ];
    const firstAnswer = async (method: string, target: string, headers: [string, string][]) => {
      const c = await HeadFirstConnection.open(t.baseUrl, { method, target, headers });
      try {
        return await c.next();
      } finally {
        c.close();
      }
    };

    it.each([
      ['no key', undefined, 401],
      ['a wrong key', 'Bearer svc_live_wrongwrongwrongwrongwrongwrongwrong', 401],
      ['a key without leads:write', 'read', 403],
    ])('PATCH a lead with %s: the refusal, never 100 Continue', async (_name, auth, status) => {
      const header = auth === 'read' ? `Bearer ${firm.keys.read}` : auth;
      const a = await firstAnswer('PATCH', `/v1/leads/${leadId}`, expecting(header, 100));
      expect(a.status).toBe(status);
    });

    it('PATCH a lead over its body limit: 413, never 100 Continue', async () => {
      const a = await firstAnswer('PATCH', `/v1/leads/${leadId}`, expecting(`Bearer ${firm.keys['read-update-leads']}`, 16 * 1024 + 1));
      expect(a.status).toBe(413);
    });

    it('a recording upload in another content type: 415, never 100 Continue', async () => {
      const a = await firstAnswer(
        'PUT',
        uploadPath(firm.orgId, callId),
        expecting(`Bearer ${TEST_INTERNAL_TOKEN}`, 50_000_000, 'audio/mpeg'),
      );
      expect({ status: a.status, connection: a.headers.get('connection') }).toEqual({ status: 415, connection: 'close' });
    });

    it('a recording upload with a wrong internal token: 401, never 100 Continue', async () => {
      const a = await firstAnswer('PUT', uploadPath(firm.orgId, callId), expecting('Bearer wrong-token', 50_000_000, 'audio/ogg'));
      expect(a.status).toBe(401);
    });

    it('an admitted PATCH gets 100 Continue, then its answer once the body is sent', async () => {
      const body = JSON.stringify({ status_reason: 'called back' });
      const c = await HeadFirstConnection.open(t.baseUrl, {
        method: 'PATCH',
        target: `/v1/leads/${leadId}`,
        headers: expecting(`Bearer ${firm.keys['read-update-leads']}`, Buffer.byteLength(body)),
      });
      try {
        expect((await c.next()).status).toBe(100);
        c.send(body);
        const a = await c.next();
        expect(a.status).toBe(200);
      } finally {
        c.close();
      }
    });

    it('an admitted recording upload gets 100 Continue', async () => {
      const c = await HeadFirstConnection.open(t.baseUrl, {
        method: 'PUT',
        target: uploadPath(firm.orgId, callId),
        headers: expecting(`Bearer ${TEST_INTERNAL_TOKEN}`, 1_000_000, 'audio/ogg'),
      });
      try {
        expect((await c.next()).status).toBe(100);
      } finally {
        c.close();
      }
    });
  });

  describe('a JSON body nested deeper than 32 levels is refused without being parsed', () => {
    const patch = (body: string) =>
      t.request('PATCH', `/v1/leads/${leadId}`, {
        key: firm.keys['read-update-leads'],
        rawBody: body,
        headers: { 'content-type': 'application/json' },
      });

    it('33 levels: 400 naming the depth; 32 levels reach the body checks', async () => {
      const deep = await patch(`{"status":${'['.repeat(32)}${']'.repeat(32)}}`);
      expect({ status: deep.status, code: deep.body.code, detail: deep.body.detail }).toEqual({
        status: 400,
        code: 'invalid_request',
        detail: 'body must not be nested more than 32 levels deep.',
      });
      const fits = await patch(`{"status":${'['.repeat(31)}${']'.repeat(31)}}`);
      expect(fits.status).toBe(400);
      expect(fits.body.detail).not.toContain('levels deep');
    });

    it('brackets inside strings do not count', async () => {
      const r = await patch(JSON.stringify({ status_reason: '['.repeat(400) }));
      expect(r.status).toBe(200);
    });

    it('a 16 KiB body of brackets never reaches JSON.parse', async () => {
      const n = 8 * 1024;
      const parses = await bigParsesDuring(async () => {
        const r = await patch('['.repeat(n) + ']'.repeat(n));
        expect(r.status).toBe(400);
      });
      expect(parses).toBe(0);
    });
  });
});
