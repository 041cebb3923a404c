import type { StreamableFile } from '@nestjs/common';
import type { ApiPrincipal } from '../../../src/common/http/principal';
import { IngestionService } from '../../../src/ingestion';
import { TranscriptsService } from '../../../src/transcripts';
import { fullCallDocument, unansweredCallDocument } from '../../support/call-documents';
import { createFirm, type TestFirm } from '../../support/factories';
import { sharedMediumService, type SharedMediumService } from '../../support/shared-medium';

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

/** The JSON a streamed answer carries. */
async function json(file: StreamableFile): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of file.getStream()) chunks.push(Buffer.from(chunk as Uint8Array));
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** TranscriptsService.get (GET /v1/calls/{call_id}/transcript) against the real database, without HTTP. */
describe('TranscriptsService.get', () => {
  let m: SharedMediumService<TranscriptsService>;
  let firm: TestFirm;
  let reader: ApiPrincipal;
  const get = async (callId: string, q: Parameters<TranscriptsService['get']>[2] = {}, p = reader) => json(await m.sut.get(p, callId, q));

  beforeAll(async () => {
    m = await sharedMediumService(TranscriptsService);
    firm = await createFirm(m.module);
    reader = await m.principal(firm.keys.read);
    const other = await createFirm(m.module);
    const ingest = (orgId: string, callId: string, doc: unknown) =>
      m.module.get(IngestionService).ingest(orgId, doc, callId, { livemode: true });
    await ingest(firm.orgId, 'call_full', fullCallDocument());
    await ingest(firm.orgId, 'call_silent', unansweredCallDocument());
    await ingest(other.orgId, 'call_theirs', fullCallDocument());
    // A long call: 40 intake turns, then 960 conversation turns, alternating speakers.
    const turns = Array.from({ length: 1000 }, (_, i) => ({
      speaker: i < 40 ? (i % 2 ? 'caller' : 'receptionist') : i % 2 ? 'caller' : 'staff',
      speaker_name: i >= 40 && i % 2 === 0 ? 'Luis Ortega' : null,
      segment: i < 40 ? 'intake' : 'conversation',
      text: `turn ${i}`,
      start_s: i * 2,
    }));
    await ingest(firm.orgId, 'call_long', {
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

  it('answers the whole transcript without limit, consecutive speech of one speaker joined, briefings re-pointed', async () => {
    expect(await get('call_full')).toEqual({
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
      pages.push([r.start_turn, r.has_more, r.next_start_turn]);
      expect(r.turn_count).toBe(7);
      seen.push(...r.untrusted.turns);
      start = r.next_start_turn;
    }
    expect(pages).toEqual([
      [0, true, 3],
      [3, true, 6],
      [6, false, null],
    ]);
    expect(seen).toEqual(FULL_TURNS);
  });

  it('restricts to a segment, counting its turns while covers and briefings describe the whole call', async () => {
    expect(await get('call_full', { segment: 'briefing' })).toEqual({
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
    expect(c).toMatchObject({ turn_count: 2, start_turn: 1, has_more: false, next_start_turn: null });
    expect(c.untrusted.turns).toEqual([FULL_TURNS[6]]);
    expect(await get('call_full', { segment: 'intake', limit: 2 })).toMatchObject({
      turn_count: 3,
      start_turn: 0,
      has_more: true,
      next_start_turn: 2,
    });
  });

  it('serves 500-turn pages of a long call, within a segment too', async () => {
    const first = await get('call_long', { limit: 500 });
    expect(first).toMatchObject({
      turn_count: 1000,
      start_turn: 0,
      has_more: true,
      next_start_turn: 500,
      covers: ['intake', 'conversation'],
      notice: 'Part of the conversation was not transcribed.',
    });
    expect(first.untrusted.turns).toHaveLength(500);
    expect(first.untrusted.turns[499].text).toBe('turn 499');
    const second = await get('call_long', { limit: 500, start_turn: 500 });
    expect(second).toMatchObject({ start_turn: 500, has_more: false, next_start_turn: null });
    expect(second.untrusted.turns[0]).toEqual({
      speaker: 'staff',
      speaker_name: 'Luis Ortega',
      segment: 'conversation',
      text: 'turn 500',
      start_s: 1000,
    });
    const conv = await get('call_long', { segment: 'conversation', start_turn: 500, limit: 500 });
    expect(conv).toMatchObject({ turn_count: 960, start_turn: 500, has_more: false, next_start_turn: null });
    expect(conv.untrusted.turns).toHaveLength(460);
    expect(conv.untrusted.turns[0].text).toBe('turn 540');
  });

  it('answers an empty page past the end', async () => {
    expect(await get('call_full', { start_turn: 50 })).toMatchObject({
      turn_count: 7,
      start_turn: 50,
      has_more: false,
      next_start_turn: null,
      untrusted: { turns: [] },
    });
  });

  it('answers an empty transcript, not a 404, for a call with no conversation', async () => {
    expect(await get('call_silent')).toEqual({
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

  it("another firm's call and an unknown one are not found, and write no audit entry", async () => {
    for (const id of ['call_theirs', 'nope']) await expect(m.sut.get(reader, id, {})).rejects.toMatchObject({ code: 'not_found' });
    expect(
      await m.sql(`SELECT 1 FROM audit_log WHERE org_id = $1 AND action = 'call.transcript_read' AND 'nope' = ANY(resource_ids)`, [
        firm.orgId,
      ]),
    ).toEqual([]);
  });

  it('audits the read with the key, the call and the part read', async () => {
    const writer = await m.principal(firm.keys['read-update-leads']);
    await get('call_full', { segment: 'intake', limit: 2 }, writer);
    const [entry] = await m.sql(
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
