import type { StreamableFile } from '@nestjs/common';
import { CallsService, CATEGORIES, LANGUAGES, OUTCOMES, URGENCIES } from '../../../src/calls';
import type { ApiPrincipal } from '../../../src/common/http/principal';
import { DemoService, demoHistory, type DemoSeedResult } from '../../../src/demo';
import { LeadsService } from '../../../src/leads';
import { RecordingsService } from '../../../src/recordings';
import { TranscriptsService } from '../../../src/transcripts';
import { sharedMediumService, type SharedMediumService } from '../../support/shared-medium';

type Call = Awaited<ReturnType<CallsService['list']>>['calls'][number];
type Lead = Awaited<ReturnType<LeadsService['list']>>['leads'][number];

/** The JSON a streamed answer carries. */
async function json(file: StreamableFile): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of file.getStream()) chunks.push(Buffer.from(chunk as Uint8Array));
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** DemoService.seed: the demo firm gets a realistic call history, read back through the services a key reads. */
describe('DemoService.seed', () => {
  let m: SharedMediumService<DemoService>;
  let demo: DemoSeedResult;
  let reader: ApiPrincipal;
  let calls: Call[];
  let leads: Lead[];

  /** Every page of a list. */
  async function all<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | undefined;
    do {
      const p = await page(cursor);
      out.push(...p.items);
      cursor = p.next_cursor ?? undefined;
    } while (cursor);
    return out;
  }

  beforeAll(async () => {
    m = await sharedMediumService(DemoService);
    demo = await m.sut.seed();
    reader = await m.principal(demo.keys.read);
    calls = await all(async (cursor) => {
      const p = await m.module.get(CallsService).list(reader, { limit: 100, cursor });
      return { items: p.calls, next_cursor: p.next_cursor };
    });
    leads = await all(async (cursor) => {
      const p = await m.module.get(LeadsService).list(reader, { limit: 100, cursor });
      return { items: p.leads, next_cursor: p.next_cursor };
    });
  });

  // How long seeding takes is measured (docs/decisions.md), not asserted: a test passes on a busy machine.
  it('keeps its return shape', () => {
    expect(Object.keys(demo)).toEqual(['org_id', 'slug', 'keys']);
    expect(Object.keys(demo.keys).sort()).toEqual(['read', 'read-no-transcripts', 'read-no-transcripts-update-leads', 'read-update-leads']);
  });

  it('gives every answered call a real Ogg Opus recording, and none to unanswered calls', async () => {
    for (const c of calls)
      expect({ call: c.call_id, has_recording: c.has_recording }).toEqual({ call: c.call_id, has_recording: c.answered === true });
    const spanish = calls.find((c) => c.answered && c.language === 'es')!;
    const playback = await m.module.get(RecordingsService).openForKey(reader, spanish.call_id, {});
    const chunks: Buffer[] = [];
    for await (const chunk of playback.object.stream()) chunks.push(Buffer.from(chunk as Uint8Array));
    const audio = Buffer.concat(chunks);
    expect(audio.subarray(0, 4).toString('latin1')).toBe('OggS');
    expect(audio.includes(Buffer.from('OpusHead'))).toBe(true);
  });

  it('has at least 200 calls over the last 60 days', async () => {
    expect(calls.length).toBeGreaterThanOrEqual(200);
    const [db] = await m.sql('SELECT clock_timestamp() AS now');
    for (const c of calls) {
      const age = db.now.getTime() - Date.parse(c.started_at!);
      expect(age).toBeGreaterThan(0);
      expect(age).toBeLessThanOrEqual(60 * 86_400_000);
    }
    const [org] = await m.sql('SELECT first_call_at FROM orgs WHERE id = $1', [demo.org_id]);
    expect(org.first_call_at).not.toBeNull();
  });

  it('covers every category, outcome, language and urgency, and unanswered calls', () => {
    const answered = calls.filter((c) => c.answered);
    expect(new Set(answered.map((c) => c.category))).toEqual(new Set(CATEGORIES));
    expect(new Set(calls.map((c) => c.outcome))).toEqual(new Set(OUTCOMES));
    expect(new Set(answered.map((c) => c.language))).toEqual(new Set(LANGUAGES));
    expect(new Set(answered.map((c) => c.urgency))).toEqual(new Set(URGENCIES));
    const unanswered = calls.filter((c) => c.answered === false);
    expect(unanswered.length).toBeGreaterThan(5);
    for (const c of unanswered) expect(c).toMatchObject({ outcome: 'not_attempted', lead_id: null, category: null });
  });

  it('has transferred calls with briefings and a staff conversation', async () => {
    const connected = calls.filter((c) => c.outcome === 'connected');
    expect(connected.length).toBeGreaterThan(10);
    const tr = await json(await m.module.get(TranscriptsService).get(reader, connected[0].call_id, {}));
    expect(tr.covers).toEqual(['intake', 'briefing', 'conversation']);
    expect(tr.briefings.length).toBeGreaterThanOrEqual(1);
    expect(tr.connected_name).not.toBeNull();
    expect(tr.untrusted.turns.some((x: any) => x.speaker === 'staff' && x.segment === 'conversation')).toBe(true);
    const detail = (await m.module.get(CallsService).get(reader, connected[0].call_id)).call;
    expect(detail.untrusted!.conversation_summary).not.toBeNull();
    expect(detail.explanation!.length).toBeGreaterThan(2);
  });

  it('has calls with references and about people, findable by reference and caller number', async () => {
    const withRefs = calls.filter((c) => c.untrusted?.details?.references.length);
    const withAbout = calls.filter((c) => c.untrusted?.details?.about.length);
    expect(withRefs.length).toBeGreaterThan(10);
    expect(withAbout.length).toBeGreaterThan(10);
    const ref = withRefs[0].untrusted!.details!.references[0];
    const byRef = await m.module.get(CallsService).list(reader, { reference: ref.value });
    expect(byRef.calls.map((c) => c.call_id)).toContain(withRefs[0].call_id);
    const byNumber = await m.module.get(CallsService).list(reader, { caller_number: calls.find((c) => c.from)!.from! });
    expect(byNumber.calls.length).toBeGreaterThanOrEqual(1);
  });

  it('has leads in every status, with full intake', async () => {
    expect(new Set(leads.map((l) => l.status))).toEqual(new Set(['new', 'contacted', 'signed', 'rejected']));
    for (const status of ['new', 'contacted', 'signed', 'rejected']) {
      const lead = leads.find((l) => l.status === status)!;
      const r = await m.module.get(LeadsService).get(reader, lead.lead_id);
      expect(r.intake).not.toBeNull();
      for (const [field, value] of Object.entries(r.intake!.untrusted))
        expect({ field, value }).toEqual({ field, value: expect.anything() });
    }
    expect(leads.filter((l) => l.status === 'signed').every((l) => l.external_id !== null)).toBe(true);
    const [events] = await m.sql(
      `SELECT count(*) FILTER (WHERE type = 'lead.updated')::int AS updated, count(*) FILTER (WHERE type = 'lead.created')::int AS created FROM events WHERE org_id = $1`,
      [demo.org_id],
    );
    expect(events.created).toBe(leads.length);
    expect(events.updated).toBeGreaterThan(0);
  });

  it('is generated deterministically from its seed', () => {
    const now = new Date('2026-05-01T12:00:00Z');
    expect(JSON.stringify(demoHistory(now))).toBe(JSON.stringify(demoHistory(now)));
    expect(JSON.stringify(demoHistory(now, 7))).not.toBe(JSON.stringify(demoHistory(now)));
  });
});
