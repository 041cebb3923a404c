import pg from 'pg';
import { fullCallDocument, ingestOk, internalEnv, nextCallId, unansweredCallDocument } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

const LIST_KEYS = ['timezone', 'caller_data', 'calls', 'has_more', 'next_cursor', 'as_of', 'truncated', 'note'];
const ITEM_KEYS = [
  'call_id',
  'started_at',
  'duration_s',
  'answered',
  'category',
  'urgency',
  'language',
  'outcome',
  'lead_captured',
  'lead_id',
  'from_masked',
  'from',
  'callback_number',
  'callback_extension',
  'updated_at',
  'processing_complete',
  'dashboard_url',
  'has_recording',
  'untrusted',
];
const DETAIL_KEYS = [...ITEM_KEYS, 'handling', 'explanation', 'config_version', 'transcript_covers'];

/** A plain answered call, no transfer: started `i` hours after Feb 1. */
function fillerDocument(i: number, startedAt?: string): Record<string, any> {
  return {
    started_at: startedAt ?? new Date(Date.UTC(2026, 1, 1) + i * 3_600_000).toISOString(),
    duration_s: 60 + i,
    answered: true,
    category: i % 2 ? 'sales' : 'existing_client',
    urgency: 'low',
    language: i % 3 ? 'en' : 'es',
    outcome: i % 2 ? 'no_answer' : 'declined',
    from: `+1312555${String(1000 + i)}`,
    processing_complete: true,
    untrusted: { summary: { reason: `Filler ${i}`, message: null }, caller_name: null, details: null },
  };
}

describe('calls: GET /v1/calls and GET /v1/calls/{call_id}', () => {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  let fullLeadId: string;
  const ids = { full: 'call_full', unanswered: 'call_unanswered', tieA: 'call_tie_a', tieB: 'call_tie_b', others: 'call_other_firm' };
  const fillers: string[] = [];
  const list = (query: Record<string, string | number> = {}, key = firm.keys.read) => t.get('/v1/calls', { key, query });

  beforeAll(async () => {
    t = await startTestApp({ env: internalEnv });
    [firm, other] = await Promise.all([createFirm(t.app), createFirm(t.app, { timezone: 'Europe/Paris' })]);
    fullLeadId = (await ingestOk(t, firm.orgId, ids.full, fullCallDocument())).lead_id;
    await ingestOk(t, firm.orgId, ids.unanswered, unansweredCallDocument());
    for (let i = 0; i < 23; i++) {
      const id = `call_filler_${String(i).padStart(2, '0')}`;
      fillers.push(id);
      await ingestOk(t, firm.orgId, id, fillerDocument(i));
    }
    // Two calls at the same instant: call_id breaks the tie.
    await ingestOk(t, firm.orgId, ids.tieA, fillerDocument(100, '2026-02-20T12:00:00.000Z'));
    await ingestOk(t, firm.orgId, ids.tieB, fillerDocument(101, '2026-02-20T12:00:00.000Z'));
    await ingestOk(t, other.orgId, ids.others, fullCallDocument());
  });
  afterAll(() => t.close());

  describe('list', () => {
    it('answers the exact envelope, newest first with call_id breaking ties', async () => {
      const r = await list({ limit: 100 });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body)).toEqual(LIST_KEYS);
      expect(r.body).toMatchObject({
        timezone: 'America/Chicago',
        caller_data: 'full',
        has_more: false,
        next_cursor: null,
        truncated: false,
        note: null,
      });
      const got = r.body.calls.map((c: any) => c.call_id);
      expect(got).toHaveLength(27);
      expect(got.slice(0, 4)).toEqual([ids.unanswered, ids.full, ids.tieB, ids.tieA]);
      expect(got).not.toContain(ids.others);
      const starts = r.body.calls.map((c: any) => c.started_at);
      expect([...starts].sort().reverse()).toEqual(starts);
      for (const c of r.body.calls) expect(Object.keys(c)).toEqual(ITEM_KEYS);
    });

    it('serves each call exactly as the spec lists its fields', async () => {
      const r = await list({ ids: ids.full });
      const [c] = r.body.calls;
      expect(c).toEqual({
        call_id: ids.full,
        started_at: '2026-03-02T15:04:05.000Z',
        duration_s: 312,
        answered: true,
        category: 'new_injury_lead',
        urgency: 'high',
        language: 'en',
        outcome: 'connected',
        lead_captured: true,
        lead_id: fullLeadId,
        from_masked: '***-***-0123',
        from: '+13125550123',
        callback_number: '312.555.0188',
        callback_extension: '42',
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        processing_complete: true,
        dashboard_url: null,
        has_recording: false,
        untrusted: {
          summary: { reason: 'Rear-ended on I-90', message: 'Wants to talk to an attorney today.' },
          caller_name: 'Jordan Reyes',
          details: {
            about: [{ name: 'Ana Reyes', relation: 'injured_party' }],
            caller_organization: null,
            asked_for: 'Dana Harper',
            message_for: null,
            best_time: 'after 5pm',
            references: [
              { kind: 'claim_number', value: 'clm-778 21/b', key: 'CLM77821B', for_name: 'Ana Reyes' },
              { kind: 'police_report_number', value: 'RD 2026-0042', key: 'RD20260042', for_name: null },
            ],
            generated_at: '2026-03-02T15:10:00.000Z',
          },
        },
      });
      const [u] = (await list({ ids: ids.unanswered })).body.calls;
      expect(u).toMatchObject({
        answered: false,
        outcome: 'not_attempted',
        lead_captured: false,
        lead_id: null,
        callback_number: null,
        callback_extension: null,
      });
      expect(u.untrusted).toEqual({ summary: { reason: null, message: null }, caller_name: null, details: null });
    });

    it('sets as_of from the database clock, half a minute early', async () => {
      const before = Date.now();
      const r = await list({ limit: 1 });
      expect(r.body.as_of).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const [db] = await t.sql('SELECT clock_timestamp() AS now');
      const asOf = Date.parse(r.body.as_of);
      expect(db.now.getTime() - asOf).toBeGreaterThanOrEqual(30_000);
      expect(db.now.getTime() - asOf).toBeLessThan(30_000 + 5_000 + (Date.now() - before));
    });

    it('pages with keyset cursors through every call exactly once', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const r = await list({ limit: 5, ...(cursor ? { cursor } : {}) });
        expect(r.status).toBe(200);
        seen.push(...r.body.calls.map((c: any) => c.call_id));
        cursor = r.body.next_cursor ?? undefined;
        expect(r.body.has_more).toBe(cursor !== undefined);
        pages++;
      } while (cursor);
      expect(pages).toBe(6);
      expect(new Set(seen).size).toBe(27);
      const all = (await list({ limit: 100 })).body.calls.map((c: any) => c.call_id);
      expect(seen).toEqual(all);
      const dflt = await list();
      expect(dflt.body.calls).toHaveLength(20);
      expect(dflt.body.has_more).toBe(true);
    });

    it('binds a cursor to its filters and refuses a mangled one', async () => {
      const first = await list({ limit: 2, category: 'sales' });
      const cursor = first.body.next_cursor;
      expect(typeof cursor).toBe('string');
      const next = await list({ limit: 2, category: 'sales', cursor });
      expect(next.status).toBe(200);
      expect(next.body.calls.every((c: any) => c.category === 'sales')).toBe(true);
      const otherFilters = await list({ limit: 2, category: 'existing_client', cursor });
      expect(otherFilters.status).toBe(400);
      expect(otherFilters.body).toMatchObject({ code: 'invalid_request', param: 'cursor' });
      const noFilters = await list({ limit: 2, cursor });
      expect(noFilters.status).toBe(400);
      const mangled = await list({ limit: 2, category: 'sales', cursor: cursor.slice(0, -2) + (cursor.endsWith('AA') ? 'BB' : 'AA') });
      expect(mangled.status).toBe(400);
      expect(mangled.body.param).toBe('cursor');
      const garbage = await list({ cursor: 'not-a-cursor' });
      expect(garbage.body.param).toBe('cursor');
      // A lead cursor is not a calls cursor (a firm of its own with two leads, so the leads list has a next page).
      const withLeads = await createFirm(t.app);
      for (let i = 0; i < 2; i++) await ingestOk(t, withLeads.orgId, nextCallId('call_leadcursor'), fullCallDocument());
      const leadsPage = await t.get('/v1/leads', { key: withLeads.keys.read, query: { limit: 1 } });
      expect(leadsPage.body.has_more).toBe(true);
      const foreign = await t.get('/v1/calls', { key: withLeads.keys.read, query: { cursor: leadsPage.body.next_cursor } });
      expect(foreign.status).toBe(400);
      expect(foreign.body).toMatchObject({ code: 'invalid_request', param: 'cursor' });
    });

    it('filters by start time: from inclusive, to exclusive', async () => {
      const r = await list({ from: '2026-02-20T12:00:00Z', to: '2026-03-02T16:00:00Z', limit: 100 });
      expect(r.body.calls.map((c: any) => c.call_id)).toEqual([ids.full, ids.tieB, ids.tieA]);
      const offset = await list({ from: '2026-02-20T06:00:00-06:00', to: '2026-02-20T12:00:00.001Z' });
      expect(offset.body.calls.map((c: any) => c.call_id)).toEqual([ids.tieB, ids.tieA]);
      // Without an offset a date-time is read as UTC.
      const noOffset = await list({ from: '2026-02-20T12:00:00', to: '2026-02-20T12:00:01' });
      expect(noOffset.body.calls.map((c: any) => c.call_id)).toEqual([ids.tieB, ids.tieA]);
    });

    it('filters by outcome, category and answered', async () => {
      const connected = await list({ outcome: 'connected' });
      expect(connected.body.calls.map((c: any) => c.call_id)).toEqual([ids.full]);
      const sales = await list({ category: 'sales', limit: 100 });
      expect(sales.body.calls.length).toBe(12);
      expect(sales.body.calls.every((c: any) => c.category === 'sales')).toBe(true);
      const unanswered = await list({ answered: 'false' });
      expect(unanswered.body.calls.map((c: any) => c.call_id)).toEqual([ids.unanswered]);
      const answered = await list({ answered: 'true', limit: 100 });
      expect(answered.body.calls).toHaveLength(26);
      const both = await list({ outcome: 'declined', category: 'sales' });
      expect(both.body.calls).toEqual([]);
    });

    it('filters by caller_number in any common format, matching from only', async () => {
      for (const n of ['+13125550123', '(312) 555-0123', '312.555.0123', '+1 312-555-0123', '3125550123', '1 312 555 0123']) {
        const r = await list({ caller_number: n });
        expect({ n, ids: r.body.calls.map((c: any) => c.call_id) }).toEqual({ n, ids: [ids.full] });
      }
      // 312 555 0188 is the full call's callback number, which caller_number never matches.
      expect((await list({ caller_number: '(312) 555-0188' })).body.calls).toEqual([]);
      // Of the form but no valid number (no such country code): matches nothing, an empty list.
      expect((await list({ caller_number: '+999' })).body.calls).toEqual([]);
      for (const bad of ['abc', '555-0123', '12', '+0999']) {
        const r = await list({ caller_number: bad });
        expect(r.status).toBe(400);
        expect(r.body.param).toBe('caller_number');
      }
    });

    it('filters by reference key, ignoring case, spaces and punctuation', async () => {
      for (const ref of ['CLM77821B', 'clm-778 21/b', 'Clm 77821 B', 'rd2026-0042']) {
        expect((await list({ reference: ref })).body.calls.map((c: any) => c.call_id)).toEqual([ids.full]);
      }
      expect((await list({ reference: 'CLM77821' })).body.calls).toEqual([]);
      // No letter or digit: the empty key, which no reference has (an empty list, not an error).
      const keyless = await list({ reference: '--/--' });
      expect(keyless.status).toBe(200);
      expect(keyless.body.calls).toEqual([]);
    });

    it('uses an index for reference and caller_number, never scanning the firm', async () => {
      const client = new pg.Client({ connectionString: t.databaseUrl });
      await client.connect();
      // A small table would be scanned anyway; the point is that an index exists that serves the query.
      await client.query('SET enable_seqscan = off');
      const plan = async (sql: string, params: unknown[]) =>
        JSON.stringify((await client.query(`EXPLAIN (FORMAT JSON) ${sql}`, params)).rows);
      const ref = await plan(
        `SELECT c.call_id FROM calls c WHERE c.org_id = $1 AND c.started_at IS NOT NULL AND c.call_id IN (SELECT r.call_id FROM call_references r WHERE r.org_id = $1 AND r.key = $2) ORDER BY c.started_at DESC, c.call_id DESC LIMIT 21`,
        [firm.orgId, 'CLM77821B'],
      );
      expect(ref).toContain('call_references_pkey');
      const num = await plan(
        `SELECT c.call_id FROM calls c WHERE c.org_id = $1 AND c.started_at IS NOT NULL AND c.from_e164 = $2 ORDER BY c.started_at DESC, c.call_id DESC LIMIT 21`,
        [firm.orgId, '+13125550123'],
      );
      expect(num).toContain('calls_org_from_idx');
      await client.end();
    });

    it("filters by ids (at most 50), leaving unknown and other firms' ids out", async () => {
      const r = await list({ ids: `${ids.tieA},nope,${ids.others},${ids.full}` });
      expect(r.body.calls.map((c: any) => c.call_id)).toEqual([ids.full, ids.tieA]);
      const fifty = Array.from({ length: 50 }, (_, i) => `x${i}`).join(',');
      expect((await list({ ids: fifty })).status).toBe(200);
      const fiftyOne = await list({ ids: `${fifty},x51` });
      expect(fiftyOne.status).toBe(400);
      expect(fiftyOne.body.param).toBe('ids');
      expect((await list({ ids: 'a,,b' })).body.param).toBe('ids');
    });

    it('filters by updated_since (at or after), ordering still by start time', async () => {
      await ingestOk(t, firm.orgId, fillers[3], { ...fillerDocument(3), urgency: 'high' });
      await ingestOk(t, firm.orgId, fillers[7], { ...fillerDocument(7), urgency: 'high' });
      const [row] = await t.sql(
        `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS u FROM calls WHERE org_id = $1 AND call_id = $2`,
        [firm.orgId, fillers[3]],
      );
      const r = await list({ updated_since: row.u });
      expect(r.body.calls.map((c: any) => c.call_id)).toEqual([fillers[7], fillers[3]]);
      const future = await list({ updated_since: '2999-01-01T00:00:00Z' });
      expect(future.body.calls).toEqual([]);
    });

    it.each([
      [{ from: 'yesterday' }, 'from'],
      [{ to: '2026-13-01T00:00:00Z' }, 'to'],
      [{ updated_since: '12/01/2026' }, 'updated_since'],
      [{ from: '2026-W18-5' }, 'from'],
      [{ updated_since: '2026-121' }, 'updated_since'],
      [{ to: '2026-05-01T10' }, 'to'],
      [{ outcome: 'transferred' }, 'outcome'],
      [{ category: 'spam' }, 'category'],
      [{ answered: 'yes' }, 'answered'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '101' }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ limit: '1.5' }, 'limit'],
      [{ page: '2' }, 'page'],
      [{ updatedSince: '2026-01-01T00:00:00Z' }, 'updatedSince'],
    ])('refuses %j with 400 naming %s', async (query, param) => {
      const r = await list(query as Record<string, string>);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_request', param });
    });

    it('needs calls:read', async () => {
      await t.sql(`UPDATE api_keys SET scopes = '{org:read,leads:read}' WHERE id = $1`, [firm.keyIds['read-no-transcripts-update-leads']]);
      const r = await list({}, firm.keys['read-no-transcripts-update-leads']);
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('insufficient_scope');
      expect((await t.get('/v1/calls/' + ids.full, { key: firm.keys['read-no-transcripts-update-leads'] })).status).toBe(403);
      expect((await t.get('/v1/calls')).status).toBe(401);
      for (const set of ['read-no-transcripts', 'read', 'read-update-leads'] as const)
        expect((await list({ limit: 1 }, firm.keys[set])).status).toBe(200);
    });

    it("lists only the caller's firm, in its timezone", async () => {
      const r = await list({}, other.keys.read);
      expect(r.body.timezone).toBe('Europe/Paris');
      expect(r.body.calls.map((c: any) => c.call_id)).toEqual([ids.others]);
    });

    it('writes one audit entry per read with the key and the ids read', async () => {
      const r = await list({ limit: 3 }, firm.keys['read-update-leads']);
      const [entry] = await t.sql(
        `SELECT actor_type, actor_id, action, resource_type, resource_ids FROM audit_log WHERE org_id = $1 ORDER BY id DESC LIMIT 1`,
        [firm.orgId],
      );
      expect(entry).toEqual({
        actor_type: 'api_key',
        actor_id: firm.keyIds['read-update-leads'],
        action: 'calls.listed',
        resource_type: 'call',
        resource_ids: r.body.calls.map((c: any) => c.call_id),
      });
    });
  });

  describe('detail', () => {
    it('adds conversation_summary, handling, explanation, config_version and transcript_covers', async () => {
      const r = await t.get(`/v1/calls/${ids.full}`, { key: firm.keys.read });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body)).toEqual(['timezone', 'caller_data', 'call']);
      expect(r.body.timezone).toBe('America/Chicago');
      expect(r.body.caller_data).toBe('full');
      const c = r.body.call;
      expect(Object.keys(c)).toEqual(DETAIL_KEYS);
      expect(Object.keys(c.untrusted)).toEqual(['summary', 'caller_name', 'details', 'conversation_summary']);
      expect(c.untrusted.conversation_summary).toEqual({
        covers: ['intake', 'briefing', 'conversation'],
        conversation_status: 'complete',
        staff_name: 'Maya Chen',
        summary: 'Maya took the details and booked a consultation.',
        outcome: 'Consultation booked',
        key_points: ['Rear-end collision', 'Neck pain'],
        confirmed_details: [{ label: 'Date of accident', value: 'March 1', said_by: 'caller' }],
        next_steps: ['Send intake forms'],
        generated_at: '2026-03-02T15:11:00.000Z',
      });
      expect(c.handling).toEqual(fullCallDocument().handling);
      expect(c.config_version).toBe(3);
      expect(c.transcript_covers).toEqual(['intake', 'briefing', 'conversation']);
      expect(c.explanation).toEqual([
        'The office was open.',
        'The receptionist reached the transfer step.',
        'The call was routed as new injury lead.',
        'The transfer rule for new injury lead applied.',
        'The caller asked for Dana Harper by name.',
        'A live transfer was allowed.',
        'The receptionist was to ring Maya Chen, then Dana Harper.',
        'Maya Chen picked up.',
        'The caller was put through to Maya Chen.',
      ]);
    });

    it('explains an ineligible transfer and a call that predates routing records', async () => {
      const doc = fullCallDocument();
      doc.handling = {
        ...doc.handling,
        business_hours: false,
        eligible: false,
        ineligible_reason: 'closed',
        chain: null,
        rung: null,
        connected: false,
        requested_person: 'none',
        requested_person_name: null,
      };
      doc.untrusted.conversation_summary = null;
      // A firm of its own: the list tests count the shared firm's calls, in any order.
      const own = await createFirm(t.app);
      await ingestOk(t, own.orgId, 'call_after_hours', doc);
      const r = await t.get('/v1/calls/call_after_hours', { key: own.keys.read });
      expect(r.body.call.explanation).toEqual([
        'The office was closed.',
        'The receptionist reached the transfer step.',
        'The call was routed as new injury lead.',
        'The transfer rule for new injury lead applied.',
        'The caller did not ask for anyone by name.',
        'A live transfer was not allowed: the office was closed and the rule does not transfer after hours.',
        'The caller was not put through.',
      ]);
      expect(r.body.call.transcript_covers).toBeNull();
      expect(r.body.call.untrusted.conversation_summary).toBeNull();
      const u = await t.get(`/v1/calls/${ids.unanswered}`, { key: firm.keys.read });
      expect(u.body.call).toMatchObject({ handling: null, explanation: [], config_version: null, transcript_covers: null });
      expect(u.body.call.untrusted.conversation_summary).toBeNull();
    });

    it("answers 404 for another firm's call and for an unknown one", async () => {
      const r = await t.get(`/v1/calls/${ids.others}`, { key: firm.keys.read });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
      expect((await t.get('/v1/calls/nope', { key: firm.keys.read })).status).toBe(404);
      expect((await t.get(`/v1/calls/${ids.others}`, { key: other.keys.read })).status).toBe(200);
    });

    it('audits the read', async () => {
      await t.get(`/v1/calls/${ids.tieA}`, { key: firm.keys.read });
      const [entry] = await t.sql(`SELECT actor_id, action, resource_ids FROM audit_log WHERE org_id = $1 ORDER BY id DESC LIMIT 1`, [
        firm.orgId,
      ]);
      expect(entry).toEqual({ actor_id: firm.keyIds.read, action: 'call.read', resource_ids: [ids.tieA] });
    });
  });
});
