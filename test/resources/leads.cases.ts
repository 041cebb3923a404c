import { fullCallDocument, ingestOk, internalEnv } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

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

/**
 * The HTTP contract of the leads reads: the answers' status and exact shape, the query refusals, scopes and 404s.
 * The rules behind them (order, filters, paging, intake, audit) are tested on LeadsService: test/medium/records/leads.cases.ts.
 */
describe('leads: GET /v1/leads and GET /v1/leads/{lead_id}', () => {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  const lead: Record<string, string> = {};
  const list = (query: Record<string, string | number> = {}, key = firm.keys.read) => t.get('/v1/leads', { key, query });

  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    [firm, other] = await Promise.all([createFirm(t.app), createFirm(t.app)]);
    lead.a = (await ingestOk(t, firm.orgId, 'call_a', leadCall(1, '(312) 555-0101'))).lead_id;
    lead.contactOnly = (
      await ingestOk(
        t,
        firm.orgId,
        'call_d',
        leadCall(4, '312.555.0104', { intake: null, intake_completeness: null, untrusted: { name: null, incident_date: null } }),
      )
    ).lead_id;
    lead.theirs = (await ingestOk(t, other.orgId, 'call_theirs', leadCall(1, '(312) 555-0101'))).lead_id;
  });

  it('answers the exact envelope', async () => {
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
    expect(r.body.leads.map((l: any) => l.lead_id)).toEqual([lead.contactOnly, lead.a]);
    for (const l of r.body.leads) expect(Object.keys(l)).toEqual(LEAD_KEYS);
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
    [{ caller_number: 'call me' }, 'caller_number'],
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

  it('answers one lead with its intake, every intake field present, or intake null', async () => {
    const r = await t.get(`/v1/leads/${lead.a}`, { key: firm.keys.read });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['timezone', 'lead', 'intake']);
    expect(r.body.timezone).toBe('America/Chicago');
    expect(Object.keys(r.body.lead)).toEqual(LEAD_KEYS);
    expect(r.body.lead.lead_id).toBe(lead.a);
    expect(Object.keys(r.body.intake)).toEqual(['extracted_at', 'completeness', 'untrusted']);
    expect(Object.keys(r.body.intake.untrusted)).toEqual(INTAKE_UNTRUSTED_KEYS);
    const contactOnly = await t.get(`/v1/leads/${lead.contactOnly}`, { key: firm.keys.read });
    expect(contactOnly.status).toBe(200);
    expect(contactOnly.body.intake).toBeNull();
  });

  it("answers 404 for another firm's lead and an unknown one", async () => {
    expect((await t.get(`/v1/leads/${lead.theirs}`, { key: firm.keys.read })).status).toBe(404);
    expect((await t.get('/v1/leads/lead_nope', { key: firm.keys.read })).body.code).toBe('not_found');
  });
});
