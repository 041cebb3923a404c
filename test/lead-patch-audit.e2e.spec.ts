import { fullCallDocument, ingestOk, internalEnv, nextCallId } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Every PATCH answer that carries the lead is audited with the key's id
 * (issue 23, item 5): a change as lead.updated (in its transaction), an
 * answer that changes nothing or refuses with 409 (whose `lead` member holds
 * the lead) as a read of it.
 */
describe('leads: PATCH answers carrying the lead are audited', () => {
  let t: TestApp;
  let firm: TestFirm;
  let keyId: string;
  const patch = (leadId: string, body: unknown) => t.request('PATCH', `/v1/leads/${leadId}`, { key: firm.keys['read-update-leads'], body });
  const newLead = async (): Promise<string> => (await ingestOk(t, firm.orgId, nextCallId(), fullCallDocument())).lead_id;
  const entries = (leadId: string) =>
    t.sql(
      `SELECT actor_type, actor_id, action, resource_type, resource_ids, details FROM audit_log
        WHERE org_id = $1 AND $2 = ANY(resource_ids) ORDER BY id`,
      [firm.orgId, leadId],
    );

  beforeAll(async () => {
    t = await startTestApp({ env: internalEnv });
    firm = await createFirm(t.app);
    keyId = firm.keyIds['read-update-leads'];
  });
  afterAll(() => t.close());

  it('a PATCH that changes nothing (200, changed false) writes a lead.read entry', async () => {
    const leadId = await newLead();
    const r = await patch(leadId, { status: 'contacted' });
    expect(r.body.changed).toBe(true);
    const same = await patch(leadId, { status: 'contacted', status_reason: null });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ changed: false, lead: { lead_id: leadId } });
    expect(await entries(leadId)).toEqual([
      expect.objectContaining({ actor_type: 'api_key', actor_id: keyId, action: 'lead.updated' }),
      {
        actor_type: 'api_key',
        actor_id: keyId,
        action: 'lead.read',
        resource_type: 'lead',
        resource_ids: [leadId],
        details: { via: 'patch', answer: 'unchanged' },
      },
    ]);
  });

  it('a 409 status_conflict, whose lead member carries the lead, writes a lead.read entry though its transaction rolled back', async () => {
    const leadId = await newLead();
    const r = await patch(leadId, { status: 'signed', expected_status: 'contacted' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'status_conflict', lead: { lead_id: leadId, status: 'new' } });
    expect(await entries(leadId)).toEqual([
      {
        actor_type: 'api_key',
        actor_id: keyId,
        action: 'lead.read',
        resource_type: 'lead',
        resource_ids: [leadId],
        details: { via: 'patch', answer: 'status_conflict' },
      },
    ]);
  });

  it('a change writes its lead.updated entry only; answers without the lead write none', async () => {
    const leadId = await newLead();
    expect((await patch(leadId, { external_id: 'CRM-1' })).status).toBe(200);
    expect((await entries(leadId)).map((e) => e.action)).toEqual(['lead.updated']);
    // 400 and 404 carry no lead data.
    expect((await patch(leadId, { status: 'new' })).status).toBe(400);
    expect((await patch('lead_unknown', { status: 'contacted' })).status).toBe(404);
    expect((await entries(leadId)).map((e) => e.action)).toEqual(['lead.updated']);
    expect(await t.sql(`SELECT 1 FROM audit_log WHERE org_id = $1 AND 'lead_unknown' = ANY(resource_ids)`, [firm.orgId])).toEqual([]);
  });
});
