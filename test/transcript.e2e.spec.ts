import { fullCallDocument, ingestOk, internalEnv, unansweredCallDocument } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

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

/** What fullCallDocument's transcript becomes: the caller's two consecutive intake lines are one turn. */
const FULL_TURNS = [
  { speaker: 'receptionist', speaker_name: null, segment: 'intake', text: 'Harper Injury Law, this is Ava.', start_s: 0 },
  { speaker: 'caller', speaker_name: null, segment: 'intake', text: 'Hi, I was in a crash. Yesterday on I-90.', start_s: 3.5 },
  { speaker: 'receptionist', speaker_name: null, segment: 'intake', text: 'I am sorry to hear that. Let me get someone.', start_s: 8 },
  {
    speaker: 'receptionist',
    speaker_name: null,
    segment: 'briefing',
    text: 'Maya, I have Jordan on the line about a rear-end crash.',
    start_s: 20,
  },
  { speaker: 'staff', speaker_name: 'Maya Chen', segment: 'briefing', text: 'Put them through.', start_s: 25 },
  { speaker: 'staff', speaker_name: 'Maya Chen', segment: 'conversation', text: 'Hi Jordan, this is Maya.', start_s: 30 },
  { speaker: 'caller', speaker_name: null, segment: 'conversation', text: 'Hi Maya.', start_s: 33 },
];
const BRIEFINGS = [{ attempt: 1, name: 'Maya Chen', outcome: 'connected', start_turn: 3, turn_count: 2 }];

describe('transcript: GET /v1/calls/{call_id}/transcript', () => {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  const get = (callId: string, query: Record<string, string | number> = {}, key = firm.keys.read) =>
    t.get(`/v1/calls/${callId}/transcript`, { key, query });

  beforeAll(async () => {
    t = await startTestApp({ env: internalEnv });
    [firm, other] = await Promise.all([createFirm(t.app), createFirm(t.app)]);
    await ingestOk(t, firm.orgId, 'call_full', fullCallDocument());
    await ingestOk(t, firm.orgId, 'call_silent', unansweredCallDocument());
    await ingestOk(t, other.orgId, 'call_theirs', fullCallDocument());
    // A long call: 40 intake turns, then 960 conversation turns, alternating speakers.
    const turns = Array.from({ length: 1000 }, (_, i) => ({
      speaker: i < 40 ? (i % 2 ? 'caller' : 'receptionist') : i % 2 ? 'caller' : 'staff',
      speaker_name: i >= 40 && i % 2 === 0 ? 'Luis Ortega' : null,
      segment: i < 40 ? 'intake' : 'conversation',
      text: `turn ${i}`,
      start_s: i * 2,
    }));
    await ingestOk(t, firm.orgId, 'call_long', {
      ...fullCallDocument(),
      transcript: {
        conversation_status: 'partial',
        connected_name: 'Luis Ortega',
        briefings: [],
        notice: 'Part of the conversation was not transcribed.',
        turns,
      },
    });
  });
  afterAll(() => t.close());

  it('answers the whole transcript without limit, exactly shaped', async () => {
    const r = await get('call_full');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(TRANSCRIPT_KEYS);
    expect(r.body).toEqual({
      call_id: 'call_full',
      turn_count: 7,
      start_turn: 0,
      has_more: false,
      next_start_turn: null,
      covers: ['intake', 'briefing', 'conversation'],
      conversation_status: 'complete',
      connected_name: 'Maya Chen',
      briefings: BRIEFINGS,
      notice: null,
      untrusted: { turns: FULL_TURNS },
    });
  });

  it('pages by turn index with start_turn and limit', async () => {
    const seen: unknown[] = [];
    let start: number | null = 0;
    const pages: [number, boolean, number | null][] = [];
    while (start !== null) {
      const r = await get('call_full', { start_turn: start, limit: 3 });
      pages.push([r.body.start_turn, r.body.has_more, r.body.next_start_turn]);
      expect(r.body.turn_count).toBe(7);
      seen.push(...r.body.untrusted.turns);
      start = r.body.next_start_turn;
    }
    expect(pages).toEqual([
      [0, true, 3],
      [3, true, 6],
      [6, false, null],
    ]);
    expect(seen).toEqual(FULL_TURNS);
  });

  it('restricts to a segment, counting its turns while covers and briefings describe the whole call', async () => {
    const b = await get('call_full', { segment: 'briefing' });
    expect(b.body).toEqual({
      call_id: 'call_full',
      turn_count: 2,
      start_turn: 0,
      has_more: false,
      next_start_turn: null,
      covers: ['intake', 'briefing', 'conversation'],
      conversation_status: 'complete',
      connected_name: 'Maya Chen',
      briefings: BRIEFINGS,
      notice: null,
      untrusted: { turns: FULL_TURNS.slice(3, 5) },
    });
    const c = await get('call_full', { segment: 'conversation', start_turn: 1, limit: 1 });
    expect(c.body).toMatchObject({ turn_count: 2, start_turn: 1, has_more: false, next_start_turn: null });
    expect(c.body.untrusted.turns).toEqual([FULL_TURNS[6]]);
    const i = await get('call_full', { segment: 'intake', limit: 2 });
    expect(i.body).toMatchObject({ turn_count: 3, start_turn: 0, has_more: true, next_start_turn: 2 });
  });

  it('serves 500-turn pages of a long call, within a segment too', async () => {
    const first = await get('call_long', { limit: 500 });
    expect(first.body).toMatchObject({
      turn_count: 1000,
      start_turn: 0,
      has_more: true,
      next_start_turn: 500,
      covers: ['intake', 'conversation'],
      notice: 'Part of the conversation was not transcribed.',
    });
    expect(first.body.untrusted.turns).toHaveLength(500);
    expect(first.body.untrusted.turns[499].text).toBe('turn 499');
    const second = await get('call_long', { limit: 500, start_turn: 500 });
    expect(second.body).toMatchObject({ start_turn: 500, has_more: false, next_start_turn: null });
    expect(second.body.untrusted.turns[0]).toEqual({
      speaker: 'staff',
      speaker_name: 'Luis Ortega',
      segment: 'conversation',
      text: 'turn 500',
      start_s: 1000,
    });
    const conv = await get('call_long', { segment: 'conversation', start_turn: 500, limit: 500 });
    expect(conv.body).toMatchObject({ turn_count: 960, start_turn: 500, has_more: false, next_start_turn: null });
    expect(conv.body.untrusted.turns).toHaveLength(460);
    expect(conv.body.untrusted.turns[0].text).toBe('turn 540');
  });

  it('answers an empty page past the end', async () => {
    const r = await get('call_full', { start_turn: 50 });
    expect(r.body).toMatchObject({ turn_count: 7, start_turn: 50, has_more: false, next_start_turn: null, untrusted: { turns: [] } });
  });

  it('answers an empty transcript, not a 404, for a call with no conversation', async () => {
    const r = await get('call_silent');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      call_id: 'call_silent',
      turn_count: 0,
      start_turn: 0,
      has_more: false,
      next_start_turn: null,
      covers: [],
      conversation_status: null,
      connected_name: null,
      briefings: [],
      notice: null,
      untrusted: { turns: [] },
    });
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

  it('audits the read with the key and the call', async () => {
    await get('call_full', { segment: 'intake', limit: 2 }, firm.keys['read-update-leads']);
    const [entry] = await t.sql(
      `SELECT actor_type, actor_id, action, resource_type, resource_ids, details FROM audit_log WHERE org_id = $1 ORDER BY id DESC LIMIT 1`,
      [firm.orgId],
    );
    expect(entry).toEqual({
      actor_type: 'api_key',
      actor_id: firm.keyIds['read-update-leads'],
      action: 'call.transcript_read',
      resource_type: 'call',
      resource_ids: ['call_full'],
      details: { start_turn: 0, returned: 2, segment: 'intake' },
    });
  });
});
