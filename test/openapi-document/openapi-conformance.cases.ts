import { createFirm, type TestFirm } from '../support/factories';
import { fixture, insertCall, tempDataDir, upload } from '../support/recordings';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';

/**
 * Documented answers no other test file reaches through request(), so that
 * the conformance report (test/support/conformance.ts) covers every public
 * operation and status. Each assertion here is also checked against the
 * served document by request() itself.
 */
let t: TestApp;
let firm: TestFirm;
const data = tempDataDir();
const callId = `call_conf_${process.pid}`;

beforeAll(async () => {
  t = await startTestApp({ env: { DATA_DIR: data.dir, INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN } });
  firm = await createFirm(t.app);
  await insertCall(t, firm.orgId, callId);
  expect((await upload(t, firm.orgId, callId, fixture('injury-caller.ogg'))).status).toBeLessThan(300);
});
afterAll(async () => {
  await t.close();
  data.cleanup();
});

describe('recordings through the conformance-checked helper', () => {
  it('GET recording: 200 whole, 206 for one range', async () => {
    const key = firm.keys.read;
    expect((await t.get(`/v1/calls/${callId}/recording`, { key })).status).toBe(200);
    expect((await t.get(`/v1/calls/${callId}/recording`, { key, headers: { range: 'bytes=0-99' } })).status).toBe(206);
  });

  it('a recording link plays a range with 206', async () => {
    const link = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read });
    expect(link.status).toBe(201);
    const path = new URL(link.body.url as string).pathname;
    const r = await t.get(path, { headers: { range: 'bytes=10-19' } });
    expect(r.status).toBe(206);
    expect(r.headers.get('content-range')).toMatch(/^bytes 10-19\/\d+$/);
  });

  it('audio answers carry the fixed headers the document marks required, with the one value it documents', async () => {
    const doc = (await t.get('/v1/openapi.json')).body;
    const link = await t.request('POST', `/v1/calls/${callId}/recording-link`, { key: firm.keys.read });
    const linkHeaders = doc.paths['/v1/calls/{call_id}/recording-link'].post.responses['201'].headers;
    expect(linkHeaders['Cache-Control']).toMatchObject({ required: true, schema: { const: 'no-store' } });
    expect(link.headers.get('cache-control')).toBe('no-store');

    const audio = { 'Cache-Control': 'private, no-store', 'X-Content-Type-Options': 'nosniff' };
    const routes: [string, string, Record<string, string>, string | undefined][] = [
      ['/v1/calls/{call_id}/recording', `/v1/calls/${callId}/recording`, audio, firm.keys.read],
      ['/v1/recordings/{token}', new URL(link.body.url as string).pathname, { ...audio, 'Referrer-Policy': 'no-referrer' }, undefined],
    ];
    for (const [template, path, fixed, key] of routes) {
      for (const [status, range] of [
        ['200', undefined],
        ['206', 'bytes=0-9'],
      ] as const) {
        const documented = doc.paths[template].get.responses[status].headers;
        const r = await t.get(path, { key, headers: range ? { range } : {} });
        expect(String(r.status)).toBe(status);
        for (const [name, value] of Object.entries(fixed)) {
          expect([template, status, name, documented[name]]).toEqual([
            template,
            status,
            name,
            expect.objectContaining({ required: true, schema: { type: 'string', const: value } }),
          ]);
          expect([template, status, name, r.headers.get(name)]).toEqual([template, status, name, value]);
        }
      }
    }
  });

  it('HEAD on both recording routes answers 405 with Allow: GET', async () => {
    const own = await t.request('HEAD', `/v1/calls/${callId}/recording`, { key: firm.keys.read });
    const link = await t.request('HEAD', '/v1/recordings/any-token');
    for (const r of [own, link]) {
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('GET');
    }
  });
});

describe('400 on single reads', () => {
  it.each([['/v1/receptionist'], [`/v1/calls/${callId}`], ['/v1/leads/lead_unknown']])(
    'GET %s refuses an unknown parameter',
    async (path) => {
      const r = await t.get(path, { key: firm.keys.read, query: { colour: 'blue' } });
      expect(r.status).toBe(400);
      expect(r.body.param).toBe('colour');
    },
  );
});

describe('413 on a body-taking operation', () => {
  it('PATCH of a lead with a body over the limit answers 413 and changes nothing', async () => {
    const r = await t.request('PATCH', '/v1/leads/lead_unknown', {
      key: firm.keys['read-update-leads'],
      body: { status_reason: 'x'.repeat(9 * 1024 * 1024) },
    });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('payload_too_large');
  });
});

describe('404 on the account', () => {
  it("answers 404 when the key's firm no longer exists", async () => {
    const gone = await createFirm(t.app);
    // The firm row is removed under its key (foreign keys off for this one statement), as an operator's cleanup could leave it.
    await t.sql(
      `SET session_replication_role = replica; DELETE FROM orgs WHERE id = '${gone.orgId}'; SET session_replication_role = origin;`,
    );
    const r = await t.get('/v1/account', { key: gone.keys.read });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });
});

describe('the 400 errors list', () => {
  it('names each problem once (limit=abc fails IsInt, Min and Max with one wording)', async () => {
    const r = await t.get('/v1/calls', { key: firm.keys.read, query: { limit: 'abc' } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([{ param: 'limit', message: 'limit must be an integer from 1 to 100' }]);
  });
});
