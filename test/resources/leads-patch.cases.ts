import { fullCallDocument, ingestOk, internalEnv, nextCallId } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

/**
 * The HTTP contract of PATCH /v1/leads/{lead_id}: the answers (200, 409, 400, 415, 403, 404) and the body stage.
 * The spec's rules 1 to 6 behind them (changes, events, audit, conflicts, concurrency) are tested on LeadsService:
 * test/medium/records/leads.cases.ts.
 */
describe('leads: PATCH /v1/leads/{lead_id}', () => {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  let writeKey: string;

  const patch = (leadId: string, body: unknown, key = writeKey) => t.request('PATCH', `/v1/leads/${leadId}`, { key, body });
  const newLead = async (f: TestFirm = firm): Promise<string> => (await ingestOk(t, f.orgId, nextCallId(), fullCallDocument())).lead_id;
  const stored = async (leadId: string) =>
    (
      await t.sql('SELECT status, external_id, status_reason, version, updated_at, status_updated_at FROM leads WHERE lead_id = $1', [
        leadId,
      ])
    )[0];
  const updates = async (leadId: string) =>
    (
      await t.sql(
        `SELECT data::text AS data, txid::text AS txid FROM events WHERE type = 'lead.updated' AND data->>'lead_id' = $1 ORDER BY seq`,
        [leadId],
      )
    ).map((r) => ({
      ...JSON.parse(r.data),
      _raw: r.data,
    }));

  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    [firm, other] = await Promise.all([createFirm(t.app), createFirm(t.app)]);
    writeKey = firm.keys['read-update-leads'];
  });

  it('sets the status: answers {timezone, caller_data, lead, changed, next_step}', async () => {
    const leadId = await newLead();
    const r = await patch(leadId, { status: 'contacted' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['timezone', 'caller_data', 'lead', 'changed', 'next_step']);
    expect(r.body).toMatchObject({ timezone: 'America/Chicago', caller_data: 'full', changed: true });
    expect(typeof r.body.next_step).toBe('string');
    expect(r.body.lead).toMatchObject({ lead_id: leadId, status: 'contacted', external_id: null, status_reason: null });
    const unchanged = await patch(leadId, { status: 'contacted' });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toMatchObject({ changed: false, lead: { lead_id: leadId, status: 'contacted' } });
  });

  it('answers 409 status_conflict when expected_status differs, with the current status in detail and the lead in lead (rule 4)', async () => {
    const leadId = await newLead();
    await patch(leadId, { status: 'contacted', external_id: 'X-1' });
    const r = await patch(leadId, { status: 'signed', expected_status: 'new', status_reason: 'Signed today' });
    expect(r.status).toBe(409);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.code).toBe('status_conflict');
    expect(r.body.detail).toContain('contacted');
    const current = await t.get(`/v1/leads/${leadId}`, { key: firm.keys.read });
    expect(r.body.lead).toEqual(current.body.lead);
  });

  describe('bad bodies: 400 naming the problem, nothing changed', () => {
    const cases: [string, unknown, string][] = [
      ['an empty object', {}, 'body'],
      ['only expected_status', { expected_status: 'new' }, 'body'],
      ['status new', { status: 'new' }, 'status'],
      ['an unknown status', { status: 'won' }, 'status'],
      ['a numeric status', { status: 1 }, 'status'],
      ['a null status', { status: null }, 'status'],
      ['an unknown expected_status', { status: 'signed', expected_status: 'lost' }, 'expected_status'],
      ['an empty external_id', { external_id: '' }, 'external_id'],
      ['a multi-line external_id', { external_id: 'A\nB' }, 'external_id'],
      ['a 201-character external_id', { external_id: 'x'.repeat(201) }, 'external_id'],
      ['a numeric external_id', { external_id: 12 }, 'external_id'],
      ['an empty status_reason', { status_reason: '' }, 'status_reason'],
      ['a 501-character status_reason', { status_reason: 'x'.repeat(501) }, 'status_reason'],
      ['an unknown member', { status: 'signed', note: 'hi' }, 'note'],
      ['an array', [{ status: 'signed' }], 'body'],
      ['null', null, 'body'],
    ];
    let leadId: string;
    let before: any;
    beforeAll(async () => {
      leadId = await newLead();
      before = await stored(leadId);
    });
    afterAll(async () => {
      expect(await stored(leadId)).toEqual(before);
      expect(await updates(leadId)).toHaveLength(0);
      // Refused before the lead is read: no answer carried it, so nothing is audited.
      expect(await t.sql(`SELECT action FROM audit_log WHERE $1 = ANY(resource_ids)`, [leadId])).toEqual([]);
    });

    it.each(cases)('refuses %s', async (_name, body, param) => {
      const r = await t.request('PATCH', `/v1/leads/${leadId}`, {
        key: writeKey,
        rawBody: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_request', param });
    });

    const details: [unknown, string][] = [
      [{}, 'Send at least one of status, external_id, status_reason.'],
      [{ status: 'new' }, 'status cannot be set back to new; send contacted, signed or rejected.'],
      [{ status: null }, 'status must be one of contacted, signed, rejected.'],
      [{ status: 'signed', expected_status: 'lost' }, 'expected_status must be one of new, contacted, signed, rejected.'],
      [{ external_id: 'A\nB' }, 'external_id must be a string of 1 to 200 characters on one line, or null to clear it.'],
      [{ status_reason: '' }, 'status_reason must be a string of 1 to 500 characters, or null to clear it.'],
      [{ status: 'signed', note: 'hi' }, 'note is not allowed; the body takes status, external_id, status_reason and expected_status.'],
      [[{ status: 'signed' }], 'The body must be a JSON object with at least one of status, external_id, status_reason.'],
      [null, 'The body must be a JSON object with at least one of status, external_id, status_reason.'],
    ];
    it.each(details)('words the refusal of %j exactly', async (body, detail) => {
      const r = await t.request('PATCH', `/v1/leads/${leadId}`, {
        key: writeKey,
        rawBody: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(r.body.detail).toBe(detail);
    });

    it.each([
      ['application/x-www-form-urlencoded', 'status=contacted'],
      ['text/plain', '{"status":"contacted"}'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="status"\r\n\r\ncontacted\r\n--x--\r\n'],
      ['application/xml', '<status>contacted</status>'],
    ])('refuses a %s body with 415 and changes nothing', async (contentType, rawBody) => {
      const r = await t.request('PATCH', `/v1/leads/${leadId}`, { key: writeKey, rawBody, headers: { 'content-type': contentType } });
      expect(r.status).toBe(415);
      expect(r.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(r.body).toMatchObject({ code: 'unsupported_media_type', status: 415 });
      expect(await stored(leadId)).toEqual(before);
    });

    it('refuses a body that is not JSON, and an empty one', async () => {
      const notJson = await t.request('PATCH', `/v1/leads/${leadId}`, {
        key: writeKey,
        rawBody: '{status: signed',
        headers: { 'content-type': 'application/json' },
      });
      expect(notJson.status).toBe(400);
      expect(notJson.body.code).toBe('invalid_request');
      const empty = await t.request('PATCH', `/v1/leads/${leadId}`, { key: writeKey });
      expect(empty.status).toBe(400);
    });

    it('accepts the limits themselves', async () => {
      const other = await newLead();
      const r = await patch(other, { external_id: 'é'.repeat(200), status_reason: 'line one\nline two'.padEnd(500, '.') });
      expect(r.status).toBe(200);
      expect(r.body.lead.external_id).toHaveLength(200);
    });
  });

  it("needs leads:write; another firm's lead is a 404", async () => {
    const leadId = await newLead();
    const denied = await patch(leadId, { status: 'contacted' }, firm.keys.read);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'leads:write' });
    expect((await patch(leadId, { status: 'contacted' }, firm.keys['read-no-transcripts-update-leads'])).status).toBe(200);
    const theirs = await newLead(other);
    expect((await patch(theirs, { status: 'contacted' })).status).toBe(404);
    expect((await patch('lead_nope', { status: 'contacted' })).status).toBe(404);
    expect((await stored(theirs)).status).toBe('new');
  });
});
