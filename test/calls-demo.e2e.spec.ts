import { CATEGORIES, LANGUAGES, OUTCOMES, URGENCIES } from '../src/calls';
import { DemoService, type DemoSeedResult } from '../src/demo';
import { demoHistory } from '../src/demo';
import { getBytes } from './support/recordings';
import { startTestApp, type TestApp } from './support/test-app';

describe('demo seed: the demo firm gets a realistic call history', () => {
  let t: TestApp;
  let demo: DemoSeedResult;
  let calls: any[];
  let leads: any[];

  async function all(path: string, listKey: string, key: string): Promise<any[]> {
    const out: any[] = [];
    let cursor: string | undefined;
    do {
      const r = await t.get(path, { key, query: { limit: 100, ...(cursor ? { cursor } : {}) } });
      expect(r.status).toBe(200);
      out.push(...r.body[listKey]);
      cursor = r.body.next_cursor ?? undefined;
    } while (cursor);
    return out;
  }

  beforeAll(async () => {
    t = await startTestApp();
    demo = await t.app.get(DemoService).seed();
    calls = await all('/v1/calls', 'calls', demo.keys.read);
    leads = await all('/v1/leads', 'leads', demo.keys.read);
  });
  afterAll(() => t.close());

  // How long seeding takes is measured (docs/decisions.md), not asserted: a test passes on a busy machine.
  it('keeps its return shape', () => {
    expect(Object.keys(demo)).toEqual(['org_id', 'slug', 'keys']);
    expect(Object.keys(demo.keys).sort()).toEqual(['read', 'read-no-transcripts', 'read-no-transcripts-update-leads', 'read-update-leads']);
  });

  it('gives every answered call a real Ogg Opus recording, and none to unanswered calls', async () => {
    for (const c of calls)
      expect({ call: c.call_id, has_recording: c.has_recording }).toEqual({ call: c.call_id, has_recording: c.answered === true });
    const spanish = calls.find((c) => c.answered && c.language === 'es');
    const r = await getBytes(t, `/v1/calls/${spanish.call_id}/recording`, { key: demo.keys.read });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('audio/ogg');
    const audio = r.bytes;
    expect(audio.subarray(0, 4).toString('latin1')).toBe('OggS');
    expect(audio.includes(Buffer.from('OpusHead'))).toBe(true);
  });

  it('has at least 200 calls over the last 60 days', async () => {
    expect(calls.length).toBeGreaterThanOrEqual(200);
    const [db] = await t.sql('SELECT clock_timestamp() AS now');
    for (const c of calls) {
      const age = db.now.getTime() - Date.parse(c.started_at);
      expect(age).toBeGreaterThan(0);
      expect(age).toBeLessThanOrEqual(60 * 86_400_000);
    }
    const [org] = await t.sql('SELECT first_call_at FROM orgs WHERE id = $1', [demo.org_id]);
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
    const tr = await t.get(`/v1/calls/${connected[0].call_id}/transcript`, { key: demo.keys.read });
    expect(tr.body.covers).toEqual(['intake', 'briefing', 'conversation']);
    expect(tr.body.briefings.length).toBeGreaterThanOrEqual(1);
    expect(tr.body.connected_name).not.toBeNull();
    expect(tr.body.untrusted.turns.some((x: any) => x.speaker === 'staff' && x.segment === 'conversation')).toBe(true);
    const detail = await t.get(`/v1/calls/${connected[0].call_id}`, { key: demo.keys.read });
    expect(detail.body.call.untrusted.conversation_summary).not.toBeNull();
    expect(detail.body.call.explanation.length).toBeGreaterThan(2);
  });

  it('has calls with references and about people, findable by reference and caller number', async () => {
    const withRefs = calls.filter((c) => c.untrusted?.details?.references.length);
    const withAbout = calls.filter((c) => c.untrusted?.details?.about.length);
    expect(withRefs.length).toBeGreaterThan(10);
    expect(withAbout.length).toBeGreaterThan(10);
    const ref = withRefs[0].untrusted.details.references[0];
    const r = await t.get('/v1/calls', { key: demo.keys.read, query: { reference: ref.value } });
    expect(r.body.calls.map((c: any) => c.call_id)).toContain(withRefs[0].call_id);
    const byNumber = await t.get('/v1/calls', { key: demo.keys.read, query: { caller_number: calls.find((c) => c.from)!.from } });
    expect(byNumber.body.calls.length).toBeGreaterThanOrEqual(1);
  });

  it('has leads in every status, with full intake', async () => {
    expect(new Set(leads.map((l) => l.status))).toEqual(new Set(['new', 'contacted', 'signed', 'rejected']));
    for (const status of ['new', 'contacted', 'signed', 'rejected']) {
      const lead = leads.find((l) => l.status === status);
      const r = await t.get(`/v1/leads/${lead.lead_id}`, { key: demo.keys.read });
      expect(r.body.intake).not.toBeNull();
      for (const [field, value] of Object.entries(r.body.intake.untrusted))
        expect({ field, value }).toEqual({ field, value: expect.anything() });
    }
    expect(leads.filter((l) => l.status === 'signed').every((l) => l.external_id !== null)).toBe(true);
    const [events] = await t.sql(
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
