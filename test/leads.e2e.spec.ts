import { fullCallDocument, ingestOk, internalEnv } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

const LIST_KEYS = ['timezone', 'caller_data', 'leads', 'has_more', 'next_cursor', 'as_of', 'truncated', 'note'];
const LEAD_KEYS = [
  'lead_id',
  'call_id',
  'captured_at',
  'status',
  'status_updated_at',
  'updated_at',
  'category',
  'urgency',
  'language',
  'intake_completeness',
  'phone',
  'phone_extension',
  'email',
  'external_id',
  'status_reason',
  'untrusted',
];
const INTAKE_UNTRUSTED_KEYS = [
  'caller_name',
  'caller_phone',
  'caller_email',
  'referral_source',
  'relationship_to_injured',
  'incident_date',
  'incident_location',
  'incident_description',
  'fault_belief',
  'injuries',
  'treatment',
  'police_report_number',
  'insurance_carrier',
  'adverse_party_name',
  'narrative_summary',
  'hospitalized',
  'surgery',
  'police_report_filed',
  'gave_recorded_statement',
  'commercial_vehicle_involved',
  'missed_work',
  'currently_represented',
  'conflict_flag',
];

/** A lead-producing call started `day` days into March, with its own callback phone. */
function leadCall(day: number, phone: string, extra: Record<string, any> = {}): Record<string, any> {
  const doc = fullCallDocument({ started_at: new Date(Date.UTC(2026, 2, day, 15)).toISOString() });
  doc.lead.phone = phone;
  Object.assign(doc.lead, extra);
  return doc;
}

describe('leads: GET /v1/leads and GET /v1/leads/{lead_id}', () => {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  const lead: Record<string, string> = {};
  const list = (query: Record<string, string | number> = {}, key = firm.keys.read) => t.get('/v1/leads', { key, query });

  beforeAll(async () => {
    t = await startTestApp({ env: internalEnv });
    [firm, other] = await Promise.all([createFirm(t.app), createFirm(t.app)]);
    lead.a = (await ingestOk(t, firm.orgId, 'call_a', leadCall(1, '(312) 555-0101'))).lead_id;
    lead.b = (await ingestOk(t, firm.orgId, 'call_b', leadCall(2, '+1 773 555 0102'))).lead_id;
    lead.c = (await ingestOk(t, firm.orgId, 'call_c', leadCall(3, '(646) 555-0103', { phone_extension: null }))).lead_id;
    lead.contactOnly = (
      await ingestOk(
        t,
        firm.orgId,
        'call_d',
        leadCall(4, '312.555.0104', { intake: null, intake_completeness: null, untrusted: { name: null, incident_date: null } }),
      )
    ).lead_id;
    lead.noPhone = (
      await ingestOk(t, firm.orgId, 'call_e', leadCall(5, null as unknown as string, { phone: null, phone_extension: null, email: null }))
    ).lead_id;
    lead.theirs = (await ingestOk(t, other.orgId, 'call_theirs', leadCall(1, '(312) 555-0101'))).lead_id;
    await t.sql(`UPDATE leads SET status = 'signed', external_id = 'MATTER-7', status_reason = 'Retained' WHERE lead_id = $1`, [lead.b]);
    await t.sql(`UPDATE leads SET status = 'rejected', external_id = 'matter-7' WHERE lead_id = $1`, [lead.c]);
  });
  afterAll(() => t.close());

  it('answers the exact envelope, newest capture first', async () => {
    const r = await list();
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
    expect(r.body.leads.map((l: any) => l.lead_id)).toEqual([lead.noPhone, lead.contactOnly, lead.c, lead.b, lead.a]);
    for (const l of r.body.leads) expect(Object.keys(l)).toEqual(LEAD_KEYS);
    const [db] = await t.sql('SELECT clock_timestamp() AS now');
    expect(db.now.getTime() - Date.parse(r.body.as_of)).toBeGreaterThanOrEqual(30_000);
  });

  it('serves each lead exactly as the spec lists its fields', async () => {
    const r = await list({ call_id: 'call_b' });
    expect(r.body.leads).toEqual([
      {
        lead_id: lead.b,
        call_id: 'call_b',
        captured_at: '2026-03-02T15:00:00.000Z',
        status: 'signed',
        status_updated_at: null,
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        category: 'new_injury_lead',
        urgency: 'high',
        language: 'en',
        intake_completeness: 0.75,
        phone: '+1 773 555 0102',
        phone_extension: '42',
        email: 'jordan@example.com',
        external_id: 'MATTER-7',
        status_reason: 'Retained',
        untrusted: { name: 'Jordan Reyes', incident_date: '2026-03-01' },
      },
    ]);
    const noPhone = (await list({ call_id: 'call_e' })).body.leads[0];
    expect(noPhone).toMatchObject({ phone: null, phone_extension: null, email: null });
  });

  it('filters by status, capture time, call_id and external_id (exact)', async () => {
    const ids = async (q: Record<string, string>) => (await list(q)).body.leads.map((l: any) => l.lead_id);
    expect(await ids({ status: 'new' })).toEqual([lead.noPhone, lead.contactOnly, lead.a]);
    expect(await ids({ status: 'signed' })).toEqual([lead.b]);
    expect(await ids({ status: 'contacted' })).toEqual([]);
    expect(await ids({ from: '2026-03-02T15:00:00Z', to: '2026-03-04T15:00:00Z' })).toEqual([lead.c, lead.b]);
    expect(await ids({ call_id: 'call_a' })).toEqual([lead.a]);
    expect(await ids({ call_id: 'call_theirs' })).toEqual([]);
    expect(await ids({ external_id: 'MATTER-7' })).toEqual([lead.b]);
    expect(await ids({ external_id: 'matter-7' })).toEqual([lead.c]);
    expect(await ids({ external_id: 'MATTER-7 ' })).toEqual([]);
  });

  it('filters by caller_number against the lead phone, compared as a number', async () => {
    const ids = async (n: string) => (await list({ caller_number: n })).body.leads.map((l: any) => l.lead_id);
    expect(await ids('+13125550101')).toEqual([lead.a]);
    expect(await ids('312-555-0101')).toEqual([lead.a]);
    expect(await ids('(773) 555-0102')).toEqual([lead.b]);
    expect(await ids('3125550104')).toEqual([lead.contactOnly]);
    expect(await ids('+13125550123')).toEqual([]);
    const bad = await list({ caller_number: 'call me' });
    expect(bad.status).toBe(400);
    expect(bad.body.param).toBe('caller_number');
  });

  it('filters by updated_since', async () => {
    await ingestOk(t, firm.orgId, 'call_a', leadCall(1, '(312) 555-0101'));
    const [row] = await t.sql(
      `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS u FROM leads WHERE lead_id = $1`,
      [lead.a],
    );
    expect((await list({ updated_since: row.u })).body.leads.map((l: any) => l.lead_id)).toEqual([lead.a]);
  });

  it('pages with cursors bound to the filters', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await list({ limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...r.body.leads.map((l: any) => l.lead_id));
      cursor = r.body.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([lead.noPhone, lead.contactOnly, lead.c, lead.b, lead.a]);
    const first = await list({ limit: 1, status: 'new' });
    const wrong = await list({ limit: 1, status: 'signed', cursor: first.body.next_cursor });
    expect(wrong.status).toBe(400);
    expect(wrong.body.param).toBe('cursor');
    const callsCursor = (await t.get('/v1/calls', { key: firm.keys.read, query: { limit: 1 } })).body.next_cursor;
    expect((await list({ cursor: callsCursor })).status).toBe(400);
  });

  it.each([
    [{ status: 'open' }, 'status'],
    [{ from: 'March 1' }, 'from'],
    [{ to: '2026-03-01T25:00:00Z' }, 'to'],
    [{ updated_since: 'now' }, 'updated_since'],
    [{ from: '2026-W10-1' }, 'from'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ cursor: 'zzz' }, 'cursor'],
    [{ phone: '3125550101' }, 'phone'],
  ])('refuses %j with 400 naming %s', async (query, param) => {
    const r = await list(query as Record<string, string>);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', param });
  });

  it('needs leads:read for the list and leads:narrative for one lead', async () => {
    await t.sql(`UPDATE api_keys SET scopes = '{org:read,calls:read}' WHERE id = $1`, [firm.keyIds['read-no-transcripts-update-leads']]);
    const r = await list({}, firm.keys['read-no-transcripts-update-leads']);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'leads:read' });
    expect((await list({}, firm.keys['read-no-transcripts'])).status).toBe(200);
    const one = await t.get(`/v1/leads/${lead.a}`, { key: firm.keys['read-no-transcripts'] });
    expect(one.status).toBe(403);
    expect(one.body.required_scope).toBe('leads:narrative');
  });

  it('answers one lead with its intake, every intake field present', async () => {
    const r = await t.get(`/v1/leads/${lead.a}`, { key: firm.keys.read });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['timezone', 'lead', 'intake']);
    expect(r.body.timezone).toBe('America/Chicago');
    expect(Object.keys(r.body.lead)).toEqual(LEAD_KEYS);
    expect(r.body.lead.lead_id).toBe(lead.a);
    expect(Object.keys(r.body.intake)).toEqual(['extracted_at', 'completeness', 'untrusted']);
    expect(Object.keys(r.body.intake.untrusted)).toEqual(INTAKE_UNTRUSTED_KEYS);
    expect(r.body.intake).toEqual({
      extracted_at: '2026-03-02T15:12:00.000Z',
      completeness: 0.75,
      untrusted: {
        caller_name: 'Jordan Reyes',
        caller_phone: '312 555 0188',
        caller_email: null,
        referral_source: null,
        relationship_to_injured: null,
        incident_date: '2026-03-01',
        incident_location: 'I-90 near Exit 12',
        incident_description: null,
        fault_belief: null,
        injuries: 'Neck pain',
        treatment: null,
        police_report_number: null,
        insurance_carrier: null,
        adverse_party_name: null,
        narrative_summary: null,
        hospitalized: false,
        surgery: null,
        police_report_filed: true,
        gave_recorded_statement: null,
        commercial_vehicle_involved: null,
        missed_work: null,
        currently_represented: null,
        conflict_flag: null,
      },
    });
    const contactOnly = await t.get(`/v1/leads/${lead.contactOnly}`, { key: firm.keys.read });
    expect(contactOnly.body.intake).toBeNull();
    expect(contactOnly.body.lead.untrusted).toEqual({ name: null, incident_date: null });
  });

  it("answers 404 for another firm's lead and an unknown one", async () => {
    expect((await t.get(`/v1/leads/${lead.theirs}`, { key: firm.keys.read })).status).toBe(404);
    expect((await t.get('/v1/leads/lead_nope', { key: firm.keys.read })).body.code).toBe('not_found');
    expect((await list({}, other.keys.read)).body.leads.map((l: any) => l.lead_id)).toEqual([lead.theirs]);
  });

  it('audits list and detail reads with the key and the ids read', async () => {
    const r = await list({ limit: 2 }, firm.keys['read-update-leads']);
    const [listed] = await t.sql(
      `SELECT actor_id, action, resource_type, resource_ids FROM audit_log WHERE org_id = $1 ORDER BY id DESC LIMIT 1`,
      [firm.orgId],
    );
    expect(listed).toEqual({
      actor_id: firm.keyIds['read-update-leads'],
      action: 'leads.listed',
      resource_type: 'lead',
      resource_ids: r.body.leads.map((l: any) => l.lead_id),
    });
    await t.get(`/v1/leads/${lead.b}`, { key: firm.keys.read });
    const [read] = await t.sql(`SELECT actor_id, action, resource_ids FROM audit_log WHERE org_id = $1 ORDER BY id DESC LIMIT 1`, [
      firm.orgId,
    ]);
    expect(read).toEqual({ actor_id: firm.keyIds.read, action: 'lead.read', resource_ids: [lead.b] });
  });
});
