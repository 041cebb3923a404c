import { createHash } from 'node:crypto';
import { DEMO_SETTINGS } from '../../src/demo';
import { ReceptionistService } from '../../src/receptionist';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import { type TestApp } from '../support/test-app';

let t: TestApp;
let firm: TestFirm;
let other: TestFirm;
let callId: string;
let leadId: string;
let eventId: string;

beforeAll(async () => {
  t = await sharedTestApp(internalEnv);
  [firm, other] = [await createFirm(t.app), await createFirm(t.app)];
  callId = nextCallId('call_etag');
  leadId = (await ingestOk(t, firm.orgId, callId, fullCallDocument())).lead_id as string;
  [{ id: eventId }] = await t.sql(`SELECT id FROM events WHERE org_id = $1 ORDER BY seq LIMIT 1`, [firm.orgId]);
});

/** The six single-resource reads, each with a key that may read it. */
const reads = () => [
  { path: `/v1/calls/${callId}`, key: firm.keys.read },
  { path: `/v1/calls/${callId}/transcript`, key: firm.keys.read },
  { path: `/v1/leads/${leadId}`, key: firm.keys.read },
  { path: `/v1/events/${eventId}`, key: firm.keys.read },
  { path: '/v1/account', key: firm.keys.read },
  { path: '/v1/receptionist', key: firm.keys.read },
];

const tagOf = (bytes: string) => `"${createHash('sha256').update(bytes).digest('base64url')}"`;
const auditCount = async (action: string) =>
  Number((await t.sql(`SELECT count(*) AS n FROM audit_log WHERE org_id = $1 AND action = $2`, [firm.orgId, action]))[0].n);

describe('single-resource reads carry a strong ETag and answer If-None-Match with 304', () => {
  it('the document gives 304, If-None-Match and ETag to exactly these six reads', async () => {
    const doc = (await t.get('/v1/openapi.json')).body as { paths: Record<string, Record<string, any>> };
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const conditional = ops.filter((op) => op.responses?.['304']);
    expect(conditional.map((op) => op.operationId).sort()).toEqual([
      'getAccount',
      'getCall',
      'getCallTranscript',
      'getEvent',
      'getLead',
      'getReceptionist',
    ]);
    for (const op of conditional) {
      expect(op.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name)).toEqual(['If-None-Match']);
      expect(Object.keys(op.responses['200'].headers)).toContain('ETag');
      expect(Object.keys(op.responses['304'].headers)).toEqual(expect.arrayContaining(['ETag', 'Vary', 'RateLimit']));
    }
    // The recordings' audio has its own ETag (for If-Range); no other JSON answer carries one.
    const json200 = ops.filter((op) => !op.responses?.['304'] && op.responses?.['200']?.content?.['application/json']);
    expect(json200.filter((op) => op.responses['200'].headers?.ETag).map((op) => op.operationId)).toEqual([]);
  });

  it.each([0, 1, 2, 3, 4, 5])('read %i: a quoted tag on 200, 304 with no body for it, for a list holding it, and for *', async (i) => {
    const { path, key } = reads()[i];
    const first = await t.get(path, { key });
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect((await t.get(path, { key })).headers.get('etag')).toBe(tag);
    for (const header of [tag, `"other", W/${tag}`, '*']) {
      const again = await t.get(path, { key, headers: { 'if-none-match': header } });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(tag);
      expect(again.headers.get('content-type')).toBeNull();
      // Still counted against the key's quota.
      expect(again.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
      expect(again.headers.get('vary')).toMatch(/accept-encoding/i);
    }
    const stale = await t.get(path, { key, headers: { 'if-none-match': '"something-else"' } });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(first.text);
  });

  it('the tag of an answer Fastify serialises is the SHA-256 of its exact uncompressed bytes', async () => {
    const r = await t.get(`/v1/leads/${leadId}`, { key: firm.keys.read, headers: { 'accept-encoding': 'identity' } });
    expect(r.headers.get('etag')).toBe(tagOf(r.text));
  });

  it("another firm's id is 404 whatever If-None-Match says, never 304", async () => {
    const mine = await t.get(`/v1/calls/${callId}`, { key: firm.keys.read });
    for (const header of [mine.headers.get('etag')!, '*']) {
      const r = await t.get(`/v1/calls/${callId}`, { key: other.keys.read, headers: { 'if-none-match': header } });
      expect(r.status).toBe(404);
      expect(r.headers.get('etag')).toBeNull();
    }
  });

  it('a 304 writes the same audit entry a 200 writes', async () => {
    const { headers } = await t.get(`/v1/calls/${callId}`, { key: firm.keys.read });
    const before = [await auditCount('call.read'), await auditCount('call.transcript_read')];
    const transcript = await t.get(`/v1/calls/${callId}/transcript`, { key: firm.keys.read });
    await t.get(`/v1/calls/${callId}`, { key: firm.keys.read, headers: { 'if-none-match': headers.get('etag')! } });
    const r = await t.get(`/v1/calls/${callId}/transcript`, {
      key: firm.keys.read,
      headers: { 'if-none-match': transcript.headers.get('etag')! },
    });
    expect(r.status).toBe(304);
    expect([await auditCount('call.read'), await auditCount('call.transcript_read')]).toEqual([before[0] + 1, before[1] + 2]);
  });

  it('lists and writes carry no ETag and ignore If-None-Match', async () => {
    const list = await t.get('/v1/calls', { key: firm.keys.read, headers: { 'if-none-match': '*' } });
    expect(list.status).toBe(200);
    expect(list.headers.get('etag')).toBeNull();
    const patch = await t.request('PATCH', `/v1/leads/${leadId}`, {
      key: firm.keys['read-update-leads'],
      body: { external_id: 'no-tag-on-a-write' },
      headers: { 'if-none-match': '*' },
    });
    expect(patch.status).toBe(200);
    expect(patch.headers.get('etag')).toBeNull();
  });
});

describe('a change to the resource changes its ETag', () => {
  /** The old tag gets the new 200 with a different tag, which then answers 304. */
  async function expectNewTag(path: string, oldTag: string) {
    const r = await t.get(path, { key: firm.keys.read, headers: { 'if-none-match': oldTag } });
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).not.toBe(oldTag);
    expect((await t.get(path, { key: firm.keys.read, headers: { 'if-none-match': r.headers.get('etag')! } })).status).toBe(304);
  }
  const tagNow = async (path: string) => (await t.get(path, { key: firm.keys.read })).headers.get('etag')!;

  it('PATCH a lead', async () => {
    const path = `/v1/leads/${leadId}`;
    const old = await tagNow(path);
    const patched = await t.request('PATCH', path, { key: firm.keys['read-update-leads'], body: { external_id: `changed-${Date.now()}` } });
    expect(patched.status).toBe(200);
    await expectNewTag(path, old);
  });

  it('re-ingest a call: the call and its transcript', async () => {
    const [callPath, transcriptPath] = [`/v1/calls/${callId}`, `/v1/calls/${callId}/transcript`];
    const [oldCall, oldTranscript] = [await tagNow(callPath), await tagNow(transcriptPath)];
    const doc = fullCallDocument();
    doc.untrusted.summary.reason = 'Rear-ended on I-94';
    doc.transcript.turns[0].text = 'A different first turn.';
    await ingestOk(t, firm.orgId, callId, doc);
    await expectNewTag(callPath, oldCall);
    await expectNewTag(transcriptPath, oldTranscript);
  });

  it('publish receptionist settings', async () => {
    const old = await tagNow('/v1/receptionist');
    await t.app.get(ReceptionistService).publish(firm.orgId, { ...DEMO_SETTINGS, agent_name: 'Zoe' });
    await expectNewTag('/v1/receptionist', old);
  });
});
