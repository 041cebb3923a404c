import { fullCallDocument, ingestOk, internalEnv, unansweredCallDocument } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

const TRANSCRIPT_KEYS = [
  'call_id',
  'turn_count',
  'start_turn',
  'has_more',
  'next_start_turn',
  'covers',
  'conversation_status',
  'connected_name',
  'briefings',
  'notice',
  'untrusted',
];

/**
 * The HTTP contract of the transcript read: the answer's status and exact shape, the query refusals, scope and 404s.
 * The rules behind it (joined turns, pages, segments, long calls, the audit entry) are tested on TranscriptsService:
 * test/medium/records/transcripts.cases.ts.
 */
describe('transcript: GET /v1/calls/{call_id}/transcript', () => {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  const get = (callId: string, query: Record<string, string | number> = {}, key = firm.keys.read) =>
    t.get(`/v1/calls/${callId}/transcript`, { key, query });

  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    [firm, other] = await Promise.all([createFirm(t.app), createFirm(t.app)]);
    await ingestOk(t, firm.orgId, 'call_full', fullCallDocument());
    await ingestOk(t, firm.orgId, 'call_silent', unansweredCallDocument());
    await ingestOk(t, other.orgId, 'call_theirs', fullCallDocument());
  });

  it('answers the transcript exactly shaped, an empty one for a call with no conversation', async () => {
    const r = await get('call_full', { limit: 2 });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(TRANSCRIPT_KEYS);
    expect(r.body).toMatchObject({ call_id: 'call_full', turn_count: 7, start_turn: 0, has_more: true, next_start_turn: 2 });
    expect(Object.keys(r.body.untrusted)).toEqual(['turns']);
    expect(r.body.untrusted.turns.map((x: any) => Object.keys(x))).toEqual(
      Array(2).fill(['speaker', 'speaker_name', 'segment', 'text', 'start_s']),
    );
    const silent = await get('call_silent');
    expect(silent.status).toBe(200);
    expect(Object.keys(silent.body)).toEqual(TRANSCRIPT_KEYS);
    expect(silent.body).toMatchObject({ turn_count: 0, untrusted: { turns: [] } });
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '501' }, 'limit'],
    [{ start_turn: '-1' }, 'start_turn'],
    [{ start_turn: 'two' }, 'start_turn'],
    [{ segment: 'summary' }, 'segment'],
    [{ turn: '1' }, 'turn'],
  ])('refuses %j with 400 naming %s', async (query, param) => {
    const r = await get('call_full', query as Record<string, string>);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', param });
  });

  it('needs calls:transcript, and answers 404 for another firm or an unknown call', async () => {
    const denied = await get('call_full', {}, firm.keys['read-no-transcripts']);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'calls:transcript' });
    expect((await get('call_full', {}, firm.keys['read-update-leads'])).status).toBe(200);
    expect((await get('call_theirs')).status).toBe(404);
    expect((await get('nope')).status).toBe(404);
  });
});
