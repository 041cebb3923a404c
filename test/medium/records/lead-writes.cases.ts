import { IngestionService } from '../../../src/ingestion';
import { LeadWritesService } from '../../../src/leads';
import { fullCallDocument, nextCallId } from '../../support/call-documents';
import { createFirm, type TestFirm } from '../../support/factories';
import { sharedMediumService, type SharedMediumService } from '../../support/shared-medium';

/** LeadWritesService.update (PATCH /v1/leads/{id} and the demo) against the real database, without HTTP. */
describe('LeadWritesService.update', () => {
  let m: SharedMediumService<LeadWritesService>;
  let firm: TestFirm;
  const byKey = () => ({ kind: 'api_key' as const, id: firm.keyIds['read-update-leads'] });

  beforeAll(async () => {
    m = await sharedMediumService(LeadWritesService);
    firm = await createFirm(m.module);
  });

  /** A new lead, as the pipeline makes it: status new, version 1. */
  const newLead = async (orgId = firm.orgId): Promise<string> =>
    (await m.module.get(IngestionService).ingest(orgId, fullCallDocument(), nextCallId('call_med'), { livemode: true })).lead_id!;
  const leadUpdatedEvents = (leadId: string) =>
    m.sql(`SELECT data, txid FROM events WHERE type = 'lead.updated' AND data->>'lead_id' = $1 ORDER BY seq`, [leadId]);
  const leadRow = async (leadId: string) =>
    (await m.sql(`SELECT status, status_reason, version, xmin::text AS xmin FROM leads WHERE lead_id = $1`, [leadId]))[0];

  it('writes the change, its lead.updated event and the audit entry in one transaction', async () => {
    const leadId = await newLead();
    const { row, changes } = await m.sut.update(firm.orgId, true, leadId, { status: 'contacted', status_reason: 'called back' }, byKey());
    expect({ status: row.status, version: row.version, changes }).toEqual({
      status: 'contacted',
      version: 2,
      changes: ['status', 'status_reason'],
    });

    const [event] = await leadUpdatedEvents(leadId);
    expect(event.data).toEqual(
      expect.objectContaining({ status: 'contacted', previous_status: 'new', changes: ['status', 'status_reason'], changed_by: byKey() }),
    );
    const [audit] = await m.sql(
      `SELECT xmin::text AS xmin, details FROM audit_log WHERE action = 'lead.updated' AND $1 = ANY(resource_ids)`,
      [leadId],
    );
    expect(audit.details).toEqual({ changes: ['status', 'status_reason'], previous_status: 'new', status: 'contacted' });
    // One transaction wrote all three: the row's xmin, the audit row's and the event's txid (its 32 low bits) are one id.
    const eventXid = String(BigInt(event.txid) % 2n ** 32n);
    expect({ lead: (await leadRow(leadId)).xmin, audit: audit.xmin }).toEqual({ lead: eventXid, audit: eventXid });
  });

  it('a change whose event cannot be written leaves the lead as it was', async () => {
    const leadId = await newLead();
    // Inserting this firm's events fails from now on, after the lead's UPDATE has run in the same transaction.
    await m.sql(`CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no events'; END $$`);
    await m.sql(
      `CREATE TRIGGER refuse_lead_events BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.data::jsonb->>'lead_id' = '${leadId}') EXECUTE FUNCTION refuse_event()`,
    );
    try {
      await expect(m.sut.update(firm.orgId, true, leadId, { status: 'signed' }, byKey())).rejects.toThrow(/no events/);
    } finally {
      await m.sql(`DROP TRIGGER refuse_lead_events ON events`);
      await m.sql(`DROP FUNCTION refuse_event()`);
    }
    expect(await leadRow(leadId)).toEqual(expect.objectContaining({ status: 'new', version: 1 }));
    expect(await leadUpdatedEvents(leadId)).toEqual([]);
  });

  it('nothing to change: no write, no event', async () => {
    const leadId = await newLead();
    const { changes } = await m.sut.update(firm.orgId, true, leadId, { status: 'new', external_id: null }, byKey());
    expect(changes).toEqual([]);
    expect((await leadRow(leadId)).version).toBe(1);
    expect(await leadUpdatedEvents(leadId)).toEqual([]);
  });

  it('an expected_status that no longer holds is a status_conflict naming the current status, and writes nothing', async () => {
    const leadId = await newLead();
    await m.sut.update(firm.orgId, true, leadId, { status: 'contacted' }, byKey());
    await expect(m.sut.update(firm.orgId, true, leadId, { status: 'signed', expected_status: 'new' }, byKey())).rejects.toMatchObject({
      code: 'status_conflict',
      extra: expect.objectContaining({ current_status: 'contacted' }),
    });
    expect(await leadRow(leadId)).toEqual(expect.objectContaining({ status: 'contacted', version: 2 }));
    expect(await leadUpdatedEvents(leadId)).toHaveLength(1);
  });

  it("another firm's lead is not found, exactly like an unknown one", async () => {
    const other = await createFirm(m.module);
    const theirs = await newLead(other.orgId);
    for (const leadId of [theirs, 'lead_does_not_exist']) {
      await expect(m.sut.update(firm.orgId, true, leadId, { status: 'signed' }, byKey())).rejects.toMatchObject({ code: 'not_found' });
    }
    expect((await leadRow(theirs)).version).toBe(1);
  });
});
