import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { fullCallDocument, ingestOk, internalEnv, nextCallId, putCall } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { HeadFirstConnection } from '../support/head-first';
import { fixture, upload, uploadPath } from '../support/recordings';
import { sharedTestApp } from '../support/shared-app';
import { TEST_INTERNAL_TOKEN, type TestApp } from '../support/test-app';

const plain = (bytes: Buffer) => bytes;

/**
 * Request bodies are read as sent: a Content-Encoding other than identity is
 * refused with 415 naming the coding, before the body is read, and nothing is
 * written (docs/decisions.md: refused rather than decoded).
 */
describe('a request body with a Content-Encoding other than identity', () => {
  let t: TestApp;
  let firm: TestFirm;
  let leadId: string;

  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    firm = await createFirm(t.app);
    leadId = (await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id as string;
  });

  const lead = async () => (await t.get(`/v1/leads/${leadId}`, { key: firm.keys.read })).body;
  const patchLead = (coding: string, body: Buffer) =>
    t.request('PATCH', `/v1/leads/${leadId}`, {
      key: firm.keys['read-update-leads'],
      rawBody: body,
      headers: { 'content-type': 'application/json', 'content-encoding': coding },
    });

  it.each([
    ['gzip', 'gzip', gzipSync],
    ['br', 'br', brotliCompressSync],
    ['deflate', 'deflate', deflateSync],
    ['a plain body labelled br', 'br', plain],
    ['an unknown coding', 'x-squash', plain],
    ['identity then gzip', 'identity, GZIP', gzipSync],
  ])('PATCH a lead, %s: 415 naming the coding, the lead unchanged', async (_name, coding, encode) => {
    const before = await lead();
    const r = await patchLead(coding, encode(Buffer.from(JSON.stringify({ status_reason: `coded ${coding}` }))));
    const named = coding.split(',').pop()!.trim().toLowerCase();
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 415, code: 'unsupported_media_type' });
    expect(r.body.detail).toContain(`"${named}"`);
    expect(r.headers.get('connection')).toBe('close');
    expect(await lead()).toEqual(before);
  });

  it('a coding that is not a token is refused without being repeated back', async () => {
    const r = await patchLead('<script>', Buffer.from('{"status_reason":"x"}'));
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 415, code: 'unsupported_media_type' });
    expect(r.text).not.toContain('<script>');
  });

  it.each([['identity'], ['Identity'], ['identity, identity']])('%s is the body as sent: accepted', async (coding) => {
    const r = await patchLead(coding, Buffer.from(JSON.stringify({ status_reason: `as sent (${coding})` })));
    expect(r.status).toBe(200);
    expect(r.body.lead.status_reason).toBe(`as sent (${coding})`);
  });

  it('a call document from the pipeline in gzip: 415, no call written', async () => {
    const callId = nextCallId('call_coded');
    const r = await t.request('PUT', `/internal/v1/orgs/${firm.orgId}/calls/${callId}`, {
      rawBody: gzipSync(Buffer.from(JSON.stringify(fullCallDocument()))),
      headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 415, code: 'unsupported_media_type' });
    expect(await t.sql('SELECT 1 FROM calls WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId])).toEqual([]);
    // The same document uncompressed is taken.
    expect((await putCall(t, firm.orgId, callId, fullCallDocument())).status).toBe(201);
  });

  it('a recording upload labelled gzip: 415, nothing stored', async () => {
    const callId = nextCallId('call_coded');
    await ingestOk(t, firm.orgId, callId, fullCallDocument());
    const r = await upload(t, firm.orgId, callId, fixture('injury-caller.ogg'), { 'content-encoding': 'gzip' });
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 415, code: 'unsupported_media_type' });
    expect(await t.sql('SELECT 1 FROM recordings WHERE org_id = $1 AND call_id = $2', [firm.orgId, callId])).toEqual([]);
  });

  it.each([
    ['PATCH', () => `/v1/leads/${leadId}`, () => `Bearer ${firm.keys['read-update-leads']}`, 'application/json'],
    ['PUT', () => uploadPath(firm.orgId, nextCallId()), () => `Bearer ${TEST_INTERNAL_TOKEN}`, 'audio/ogg'],
  ])('%s: refused before a byte of the body is read (never 100 Continue)', async (method, target, auth, type) => {
    const c = await HeadFirstConnection.open(t.baseUrl, {
      method,
      target: target(),
      headers: [
        ['Authorization', auth()],
        ['Content-Type', type],
        ['Content-Length', '1000000'],
        ['Content-Encoding', 'gzip'],
        ['Expect', '100-continue'],
      ],
    });
    try {
      const a = await c.next();
      expect({ status: a.status, connection: a.headers.get('connection') }).toEqual({ status: 415, connection: 'close' });
    } finally {
      c.close();
    }
  });

  it('without a body the header changes nothing (a GET)', async () => {
    const r = await t.get(`/v1/leads/${leadId}`, { key: firm.keys.read, headers: { 'content-encoding': 'gzip' } });
    expect(r.status).toBe(200);
  });
});
