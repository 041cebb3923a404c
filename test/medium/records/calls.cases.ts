import pg from 'pg';
import { CallsService } from '../../../src/calls';
import type { ApiPrincipal } from '../../../src/common/http/principal';
import { IngestionService } from '../../../src/ingestion';
import { LeadsService } from '../../../src/leads';
import { fullCallDocument, nextCallId, unansweredCallDocument } from '../../support/call-documents';
import { createFirm, type TestFirm } from '../../support/factories';
import { sharedMediumService, type SharedMediumService } from '../../support/shared-medium';

type ListQuery = Parameters<CallsService['list']>[1];

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

/** The group's shared Nest context (CallsService with the real repositories); each describe makes its own firms. */
let m: SharedMediumService<CallsService>;
const ingest = async (orgId: string, callId: string, doc: unknown) =>
  (await m.module.get(IngestionService).ingest(orgId, doc, callId, { livemode: true })).lead_id;
beforeAll(async () => {
  m = await sharedMediumService(CallsService);
});

/** CallsService.list (GET /v1/calls) against the real database, without HTTP. */
describe('CallsService.list', () => {
  let firm: TestFirm;
  let other: TestFirm;
  let reader: ApiPrincipal;
  let fullLeadId: string;
  const ids = { full: 'call_full', unanswered: 'call_unanswered', tieA: 'call_tie_a', tieB: 'call_tie_b', others: 'call_other_firm' };
  const fillers: string[] = [];
  const list = (q: ListQuery = {}, p = reader) => m.sut.list(p, q);
  const callIds = async (q: ListQuery, p = reader) => (await list(q, p)).calls.map((c) => c.call_id);

  beforeAll(async () => {
    firm = await createFirm(m.module);
    other = await createFirm(m.module, { timezone: 'Europe/Paris' });
    reader = await m.principal(firm.keys.read);
    fullLeadId = (await ingest(firm.orgId, ids.full, fullCallDocument()))!;
    await ingest(firm.orgId, ids.unanswered, unansweredCallDocument());
    for (let i = 0; i < 23; i++) {
      const id = `call_filler_${String(i).padStart(2, '0')}`;
      fillers.push(id);
      await ingest(firm.orgId, id, fillerDocument(i));
    }
    // Two calls at the same instant: call_id breaks the tie.
    await ingest(firm.orgId, ids.tieA, fillerDocument(100, '2026-02-20T12:00:00.000Z'));
    await ingest(firm.orgId, ids.tieB, fillerDocument(101, '2026-02-20T12:00:00.000Z'));
    await ingest(other.orgId, ids.others, fullCallDocument());
  });

  it("lists the firm's calls newest first, call_id breaking ties, in the firm's timezone", async () => {
    const page = await list({ limit: 100 });
    expect(page).toMatchObject({
      timezone: 'America/Chicago',
      caller_data: 'full',
      has_more: false,
      next_cursor: null,
      truncated: false,
      note: null,
    });
    const got = page.calls.map((c) => c.call_id);
    expect(got).toHaveLength(27);
    expect(got.slice(0, 4)).toEqual([ids.unanswered, ids.full, ids.tieB, ids.tieA]);
    expect(got).not.toContain(ids.others);
    const starts = page.calls.map((c) => c.started_at!);
    expect([...starts].sort().reverse()).toEqual(starts);
  });

  it('serves each call exactly as the spec lists its fields', async () => {
    const [c] = (await list({ ids: ids.full })).calls;
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
    const [u] = (await list({ ids: ids.unanswered })).calls;
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
    const page = await list({ limit: 1 });
    expect(page.as_of).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const [db] = await m.sql('SELECT clock_timestamp() AS now');
    const asOf = Date.parse(page.as_of);
    expect(db.now.getTime() - asOf).toBeGreaterThanOrEqual(30_000);
    expect(db.now.getTime() - asOf).toBeLessThan(30_000 + 5_000 + (Date.now() - before));
  });

  it('pages with keyset cursors through every call exactly once; 20 a page by default', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list({ limit: 5, cursor });
      seen.push(...page.calls.map((c) => c.call_id));
      cursor = page.next_cursor ?? undefined;
      expect(page.has_more).toBe(cursor !== undefined);
      pages++;
    } while (cursor);
    expect(pages).toBe(6);
    expect(new Set(seen).size).toBe(27);
    expect(seen).toEqual(await callIds({ limit: 100 }));
    const dflt = await list();
    expect(dflt.calls).toHaveLength(20);
    expect(dflt.has_more).toBe(true);
  });

  it('binds a cursor to its filters and refuses a mangled one or one of another list', async () => {
    const first = await list({ limit: 2, category: 'sales' });
    const cursor = first.next_cursor!;
    expect(typeof cursor).toBe('string');
    const next = await list({ limit: 2, category: 'sales', cursor });
    expect(next.calls.every((c) => c.category === 'sales')).toBe(true);
    const refusedCursor = { code: 'invalid_request', param: 'cursor' };
    await expect(list({ limit: 2, category: 'existing_client', cursor })).rejects.toMatchObject(refusedCursor);
    await expect(list({ limit: 2, cursor })).rejects.toMatchObject(refusedCursor);
    const mangled = cursor.slice(0, -2) + (cursor.endsWith('AA') ? 'BB' : 'AA');
    await expect(list({ limit: 2, category: 'sales', cursor: mangled })).rejects.toMatchObject(refusedCursor);
    await expect(list({ cursor: 'not-a-cursor' })).rejects.toMatchObject(refusedCursor);
    // A lead cursor is not a calls cursor (a firm of its own with two leads, so the leads list has a next page).
    const withLeads = await createFirm(m.module);
    for (let i = 0; i < 2; i++) await ingest(withLeads.orgId, nextCallId('call_leadcursor'), fullCallDocument());
    const leadsReader = await m.principal(withLeads.keys.read);
    const leadsPage = await m.module.get(LeadsService).list(leadsReader, { limit: 1 });
    expect(leadsPage.has_more).toBe(true);
    await expect(list({ cursor: leadsPage.next_cursor! }, leadsReader)).rejects.toMatchObject(refusedCursor);
  });

  it('filters by start time: from inclusive, to exclusive, with or without an offset', async () => {
    expect(await callIds({ from: '2026-02-20T12:00:00Z', to: '2026-03-02T16:00:00Z', limit: 100 })).toEqual([ids.full, ids.tieB, ids.tieA]);
    expect(await callIds({ from: '2026-02-20T06:00:00-06:00', to: '2026-02-20T12:00:00.001Z' })).toEqual([ids.tieB, ids.tieA]);
    // Without an offset a date-time is read as UTC.
    expect(await callIds({ from: '2026-02-20T12:00:00', to: '2026-02-20T12:00:01' })).toEqual([ids.tieB, ids.tieA]);
    // Week and ordinal dates pass the query's shape check; the service refuses them, naming the parameter.
    await expect(list({ from: '2026-W18-5' })).rejects.toMatchObject({ code: 'invalid_request', param: 'from' });
    await expect(list({ updated_since: '2026-121' })).rejects.toMatchObject({ code: 'invalid_request', param: 'updated_since' });
  });

  it('filters by outcome, category and answered', async () => {
    expect(await callIds({ outcome: 'connected' })).toEqual([ids.full]);
    const sales = (await list({ category: 'sales', limit: 100 })).calls;
    expect(sales.length).toBe(12);
    expect(sales.every((c) => c.category === 'sales')).toBe(true);
    expect(await callIds({ answered: 'false' })).toEqual([ids.unanswered]);
    expect(await callIds({ answered: 'true', limit: 100 })).toHaveLength(26);
    expect(await callIds({ outcome: 'declined', category: 'sales' })).toEqual([]);
  });

  it('filters by caller_number in any common format, matching from only; a value not of the form is refused', async () => {
    for (const n of ['+13125550123', '(312) 555-0123', '312.555.0123', '+1 312-555-0123', '3125550123', '1 312 555 0123']) {
      expect({ n, ids: await callIds({ caller_number: n }) }).toEqual({ n, ids: [ids.full] });
    }
    // 312 555 0188 is the full call's callback number, which caller_number never matches.
    expect(await callIds({ caller_number: '(312) 555-0188' })).toEqual([]);
    // Of the form but no valid number (no such country code): matches nothing, an empty list.
    expect(await callIds({ caller_number: '+999' })).toEqual([]);
    for (const bad of ['abc', '555-0123', '12', '+0999']) {
      await expect(list({ caller_number: bad })).rejects.toMatchObject({ code: 'invalid_request', param: 'caller_number' });
    }
  });

  it('filters by reference key, ignoring case, spaces and punctuation', async () => {
    for (const ref of ['CLM77821B', 'clm-778 21/b', 'Clm 77821 B', 'rd2026-0042']) {
      expect(await callIds({ reference: ref })).toEqual([ids.full]);
    }
    expect(await callIds({ reference: 'CLM77821' })).toEqual([]);
    // No letter or digit: the empty key, which no reference has (an empty list, not an error).
    expect(await callIds({ reference: '--/--' })).toEqual([]);
  });

  it('uses an index for reference and caller_number, never scanning the firm', async () => {
    const client = new pg.Client({ connectionString: m.databaseUrl });
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

  it("filters by ids, leaving unknown and other firms' ids out", async () => {
    expect(await callIds({ ids: `${ids.tieA},nope,${ids.others},${ids.full}` })).toEqual([ids.full, ids.tieA]);
  });

  it('filters by updated_since (at or after), ordering still by start time', async () => {
    await ingest(firm.orgId, fillers[3], { ...fillerDocument(3), urgency: 'high' });
    await ingest(firm.orgId, fillers[7], { ...fillerDocument(7), urgency: 'high' });
    const [row] = await m.sql(
      `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS u FROM calls WHERE org_id = $1 AND call_id = $2`,
      [firm.orgId, fillers[3]],
    );
    expect(await callIds({ updated_since: row.u })).toEqual([fillers[7], fillers[3]]);
    expect(await callIds({ updated_since: '2999-01-01T00:00:00Z' })).toEqual([]);
  });

  it("lists only the caller's firm, in its timezone", async () => {
    const page = await list({}, await m.principal(other.keys.read));
    expect(page.timezone).toBe('Europe/Paris');
    expect(page.calls.map((c) => c.call_id)).toEqual([ids.others]);
  });

  it('writes one audit entry per read with the key and the ids read', async () => {
    const writer = await m.principal(firm.keys['read-update-leads']);
    const page = await list({ limit: 3 }, writer);
    const [entry] = await m.sql(
      `SELECT actor_type, actor_id, action, resource_type, resource_ids FROM audit_log WHERE org_id = $1 ORDER BY id DESC LIMIT 1`,
      [firm.orgId],
    );
    expect(entry).toEqual({
      actor_type: 'api_key',
      actor_id: firm.keyIds['read-update-leads'],
      action: 'calls.listed',
      resource_type: 'call',
      resource_ids: page.calls.map((c) => c.call_id),
    });
  });
});

/** CallsService.get (GET /v1/calls/{call_id}): the detail, its explanation of the routing, the audit entry. */
describe('CallsService.get', () => {
  let firm: TestFirm;
  let reader: ApiPrincipal;

  beforeAll(async () => {
    firm = await createFirm(m.module);
    reader = await m.principal(firm.keys.read);
  });

  it('adds conversation_summary, handling, explanation, config_version and transcript_covers', async () => {
    const callId = nextCallId();
    await ingest(firm.orgId, callId, fullCallDocument());
    const r = await m.sut.get(reader, callId);
    expect({ timezone: r.timezone, caller_data: r.caller_data }).toEqual({ timezone: 'America/Chicago', caller_data: 'full' });
    const c = r.call;
    expect(c.untrusted!.conversation_summary).toEqual({
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
    const afterHours = nextCallId();
    await ingest(firm.orgId, afterHours, doc);
    const r = (await m.sut.get(reader, afterHours)).call;
    expect(r.explanation).toEqual([
      'The office was closed.',
      'The receptionist reached the transfer step.',
      'The call was routed as new injury lead.',
      'The transfer rule for new injury lead applied.',
      'The caller did not ask for anyone by name.',
      'A live transfer was not allowed: the office was closed and the rule does not transfer after hours.',
      'The caller was not put through.',
    ]);
    expect(r.transcript_covers).toBeNull();
    expect(r.untrusted!.conversation_summary).toBeNull();
    const unanswered = nextCallId();
    await ingest(firm.orgId, unanswered, unansweredCallDocument());
    const u = (await m.sut.get(reader, unanswered)).call;
    expect(u).toMatchObject({ handling: null, explanation: [], config_version: null, transcript_covers: null });
    expect(u.untrusted!.conversation_summary).toBeNull();
  });

  it("another firm's call is not found like an unknown one, and writes no audit entry; a read is audited", async () => {
    const other = await createFirm(m.module);
    const theirs = nextCallId();
    await ingest(other.orgId, theirs, fullCallDocument());
    for (const id of [theirs, 'nope']) await expect(m.sut.get(reader, id)).rejects.toMatchObject({ code: 'not_found' });
    expect((await m.sut.get(await m.principal(other.keys.read), theirs)).call.call_id).toBe(theirs);
    expect(await m.sql(`SELECT 1 FROM audit_log WHERE org_id = $1 AND $2 = ANY(resource_ids)`, [firm.orgId, theirs])).toEqual([]);

    const mine = nextCallId();
    await ingest(firm.orgId, mine, unansweredCallDocument());
    await m.sut.get(reader, mine);
    const [entry] = await m.sql(`SELECT actor_id, action, resource_ids FROM audit_log WHERE org_id = $1 ORDER BY id DESC LIMIT 1`, [
      firm.orgId,
    ]);
    expect(entry).toEqual({ actor_id: firm.keyIds.read, action: 'call.read', resource_ids: [mine] });
  });
});

/**
 * Filter values of the calls and leads lists: a value of the filter's form that can match nothing gives an empty
 * list (only a value not of the form is refused); date-times compare at the precision given, not a JS Date's.
 */
describe('list filter values (CallsService.list, LeadsService.list)', () => {
  let reader: ApiPrincipal;
  let callId: string;
  let leadId: string;
  const START = '2026-04-01T00:00:00.000Z';
  const callIds = async (q: ListQuery) => (await m.sut.list(reader, q)).calls.map((c) => c.call_id);
  const leadIds = async (q: Parameters<LeadsService['list']>[1]) =>
    (await m.module.get(LeadsService).list(reader, q)).leads.map((l) => l.lead_id);

  beforeAll(async () => {
    const firm = await createFirm(m.module);
    reader = await m.principal(firm.keys.read);
    callId = nextCallId('call_filters');
    leadId = (await ingest(firm.orgId, callId, fullCallDocument({ started_at: START, from: '+1 (312) 555-0177' })))!;
    await ingest(firm.orgId, nextCallId('call_filters'), fullCallDocument({ started_at: '2026-03-01T00:00:00.000Z' }));
  });

  it.each(['(555) 555-5555', '555.555.5555', '1 555 555 5555', '+1 555-555-5555', '(555) 555-5555 x12', '+999', '0123456789'])(
    'caller_number %j, of the form, matches nothing on calls and on leads',
    async (n) => {
      expect(await callIds({ caller_number: n })).toEqual([]);
      expect(await leadIds({ caller_number: n })).toEqual([]);
    },
  );

  it.each(['abc', '12', '555-0123', '+0123', '+1234567890123456', '555-555-5555 call me'])(
    'caller_number %j, not of the form, is refused on calls and on leads',
    async (n) => {
      await expect(m.sut.list(reader, { caller_number: n })).rejects.toMatchObject({ code: 'invalid_request', param: 'caller_number' });
      await expect(m.module.get(LeadsService).list(reader, { caller_number: n })).rejects.toMatchObject({ param: 'caller_number' });
    },
  );

  it('a phone number with many separators still matches (no length bound of its own)', async () => {
    expect(await callIds({ caller_number: `+1 (312) ${' '.repeat(80)}555-0177` })).toEqual([callId]);
  });

  it('calls ids longer than any call id are left out', async () => {
    expect(await callIds({ ids: `${'c'.repeat(129)},${callId}` })).toEqual([callId]);
    expect(await callIds({ ids: 'x'.repeat(500) })).toEqual([]);
  });

  it('a reference without letters or digits (the empty key), or longer than any reference', async () => {
    expect(await callIds({ reference: '---' })).toEqual([]);
    expect(await callIds({ reference: '/' })).toEqual([]);
    // Punctuation is ignored however much of it there is: the key is still the reference's.
    expect(await callIds({ reference: `clm-778 21/b${'-'.repeat(300)}` })).toContain(callId);
  });

  it('leads external_id over 200 and call_id over 128 characters match nothing', async () => {
    expect(await leadIds({ external_id: 'e'.repeat(201) })).toEqual([]);
    expect(await leadIds({ call_id: 'c'.repeat(129) })).toEqual([]);
    expect(await leadIds({ call_id: 'not a call id' })).toEqual([]);
    expect(await leadIds({ call_id: callId })).toEqual([leadId]);
  });

  it('a cursor stays bound to the filters, long ids included', async () => {
    const firm = await createFirm(m.module);
    const own = await m.principal(firm.keys.read);
    const [a, b] = [nextCallId('call_filters'), nextCallId('call_filters')];
    await ingest(firm.orgId, a, fullCallDocument({ started_at: START }));
    await ingest(firm.orgId, b, fullCallDocument({ started_at: '2026-02-01T00:00:00.000Z' }));
    const long = 'c'.repeat(200);
    const first = await m.sut.list(own, { ids: `${a},${b},${long}`, limit: 1 });
    expect(first.has_more).toBe(true);
    const cursor = first.next_cursor!;
    expect((await m.sut.list(own, { ids: `${long},${b},${a}`, limit: 1, cursor })).calls.map((c) => c.call_id)).toEqual([b]);
    await expect(m.sut.list(own, { ids: `${a},${b}`, limit: 1, cursor })).rejects.toMatchObject({ param: 'cursor' });
  });

  it.each([
    // The call started at 00:00:00.000000.
    [{ from: '2026-04-01T00:00:00.0001Z' }, false],
    [{ from: '2026-04-01T00:00:00.000001Z' }, false],
    [{ from: '2026-04-01T00:00:00.000000Z' }, true],
    [{ from: '2026-04-01T02:00:00.0001+02:00' }, false],
    [{ to: '2026-04-01T00:00:00.0001Z' }, true],
    [{ to: '2026-04-01T00:00:00.000001Z' }, true],
    [{ to: '2026-04-01T00:00:00.000Z' }, false],
    // Beyond microseconds: never rounded down onto the call's instant (PostgreSQL would round 0.5 µs to 0).
    [{ from: '2026-04-01T00:00:00.0000005Z' }, false],
    [{ from: '2026-04-01T00:00:00.0000000001Z' }, false],
    [{ to: '2026-04-01T00:00:00.0000005Z' }, true],
    [{ from: '2026-03-31T23:59:59.9999999Z' }, true],
    // An offset that carries the instant past year 9999 (PostgreSQL reads it; it used to be a 500).
    [{ to: '9999-12-31T23:59:59-23:59' }, true],
    [{ from: '9999-12-31T23:59:59.9999999-23:59' }, false],
  ])('%j includes the call and its lead: %s', async (query, included) => {
    expect((await callIds({ ...query, limit: 100 })).includes(callId)).toBe(included);
    expect((await leadIds({ ...query, limit: 100 })).includes(leadId)).toBe(included);
  });

  it('updated_since, on calls and leads, to the microsecond', async () => {
    const stamp = async (table: 'calls' | 'leads', column: string, id: string) =>
      (
        await m.sql(
          `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at,
                  to_char((updated_at + interval '1 microsecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS after
             FROM ${table} WHERE ${column} = $1`,
          [id],
        )
      )[0];
    const call = await stamp('calls', 'call_id', callId);
    expect(await callIds({ updated_since: call.at, ids: callId })).toEqual([callId]);
    expect(await callIds({ updated_since: call.after, ids: callId })).toEqual([]);
    const lead = await stamp('leads', 'lead_id', leadId);
    expect(await leadIds({ updated_since: lead.at, call_id: callId })).toEqual([leadId]);
    expect(await leadIds({ updated_since: lead.after, call_id: callId })).toEqual([]);
  });

  it('a cursor is bound to the instant as given, below the millisecond too', async () => {
    const query = { from: '2026-01-01T00:00:00.0001Z', limit: 1 };
    const first = await m.sut.list(reader, query);
    expect(first.has_more).toBe(true);
    const cursor = first.next_cursor!;
    await m.sut.list(reader, { ...query, cursor });
    // The same instant written otherwise is the same filter.
    await m.sut.list(reader, { ...query, from: '2026-01-01T01:00:00.000100+01:00', cursor });
    await expect(m.sut.list(reader, { ...query, from: '2026-01-01T00:00:00.0002Z', cursor })).rejects.toMatchObject({ param: 'cursor' });
  });
});
