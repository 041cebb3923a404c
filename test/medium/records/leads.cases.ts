import pg from 'pg';
import { CallsService } from '../../../src/calls';
import type { ApiPrincipal } from '../../../src/common/http/principal';
import { IngestionService } from '../../../src/ingestion';
import { LeadsService } from '../../../src/leads';
import { fullCallDocument, nextCallId } from '../../support/call-documents';
import { createFirm, type TestFirm } from '../../support/factories';
import { sharedMediumService, type SharedMediumService } from '../../support/shared-medium';
import { waitFor } from '../../support/receiver';

type ListQuery = Parameters<LeadsService['list']>[1];

/** A lead-producing call started `day` days into March, with its own callback phone. */
function leadCall(day: number, phone: string | null, extra: Record<string, any> = {}): Record<string, any> {
  const doc = fullCallDocument({ started_at: new Date(Date.UTC(2026, 2, day, 15)).toISOString() });
  doc.lead.phone = phone;
  Object.assign(doc.lead, extra);
  return doc;
}

/** The group's shared Nest context (LeadsService with the real repositories); each describe makes its own firms. */
let m: SharedMediumService<LeadsService>;
beforeAll(async () => {
  m = await sharedMediumService(LeadsService);
});

/** LeadsService.list and .get (GET /v1/leads, GET /v1/leads/{lead_id}) against the real database, without HTTP. */
describe('LeadsService: list and get', () => {
  let firm: TestFirm;
  let reader: ApiPrincipal;
  let other: ApiPrincipal;
  const lead: Record<string, string> = {};
  const ingest = async (orgId: string, callId: string, doc: unknown) =>
    (await m.module.get(IngestionService).ingest(orgId, doc, callId, { livemode: true })).lead_id!;
  const ids = async (q: ListQuery, p = reader) => (await m.sut.list(p, q)).leads.map((l) => l.lead_id);

  beforeAll(async () => {
    firm = await createFirm(m.module);
    const theirs = await createFirm(m.module);
    [reader, other] = [await m.principal(firm.keys.read), await m.principal(theirs.keys.read)];
    lead.a = await ingest(firm.orgId, 'call_a', leadCall(1, '(312) 555-0101'));
    lead.b = await ingest(firm.orgId, 'call_b', leadCall(2, '+1 773 555 0102'));
    lead.c = await ingest(firm.orgId, 'call_c', leadCall(3, '(646) 555-0103', { phone_extension: null }));
    lead.contactOnly = await ingest(
      firm.orgId,
      'call_d',
      leadCall(4, '312.555.0104', { intake: null, intake_completeness: null, untrusted: { name: null, incident_date: null } }),
    );
    lead.noPhone = await ingest(firm.orgId, 'call_e', leadCall(5, null, { phone_extension: null, email: null }));
    lead.theirs = await ingest(theirs.orgId, 'call_theirs', leadCall(1, '(312) 555-0101'));
    const patch = (leadId: string, body: Parameters<LeadsService['patch']>[2]) => m.sut.patch(reader, leadId, body);
    await patch(lead.b, { status: 'signed', external_id: 'MATTER-7', status_reason: 'Retained' });
    await patch(lead.c, { status: 'rejected', external_id: 'matter-7' });
  });

  it('lists newest capture first, in the firm’s timezone, with as_of half a minute before the database clock', async () => {
    const page = await m.sut.list(reader, {});
    expect(page).toMatchObject({
      timezone: 'America/Chicago',
      caller_data: 'full',
      has_more: false,
      next_cursor: null,
      truncated: false,
      note: null,
    });
    expect(page.leads.map((l) => l.lead_id)).toEqual([lead.noPhone, lead.contactOnly, lead.c, lead.b, lead.a]);
    const [db] = await m.sql('SELECT clock_timestamp() AS now');
    expect(db.now.getTime() - Date.parse(page.as_of)).toBeGreaterThanOrEqual(30_000);
  });

  it('serves each lead exactly as the spec lists its fields', async () => {
    const [b] = (await m.sut.list(reader, { call_id: 'call_b' })).leads;
    expect(b).toEqual({
      lead_id: lead.b,
      call_id: 'call_b',
      captured_at: '2026-03-02T15:00:00.000Z',
      status: 'signed',
      status_updated_at: expect.stringMatching(/Z$/),
      updated_at: b.status_updated_at,
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
    });
    const [noPhone] = (await m.sut.list(reader, { call_id: 'call_e' })).leads;
    expect(noPhone).toMatchObject({ phone: null, phone_extension: null, email: null });
  });

  it('filters by status, capture time, call_id and external_id (exact)', async () => {
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

  it('filters by caller_number against the lead phone, compared as a number; a value not of the form is refused', async () => {
    expect(await ids({ caller_number: '+13125550101' })).toEqual([lead.a]);
    expect(await ids({ caller_number: '312-555-0101' })).toEqual([lead.a]);
    expect(await ids({ caller_number: '(773) 555-0102' })).toEqual([lead.b]);
    expect(await ids({ caller_number: '3125550104' })).toEqual([lead.contactOnly]);
    expect(await ids({ caller_number: '+13125550123' })).toEqual([]);
    await expect(m.sut.list(reader, { caller_number: 'call me' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'caller_number',
    });
  });

  it('filters by updated_since (at or after)', async () => {
    await ingest(firm.orgId, 'call_a', leadCall(1, '(312) 555-0101'));
    const [row] = await m.sql(
      `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS u FROM leads WHERE lead_id = $1`,
      [lead.a],
    );
    expect(await ids({ updated_since: row.u })).toEqual([lead.a]);
  });

  it('pages with cursors bound to the filters; a calls cursor is not a leads cursor', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await m.sut.list(reader, { limit: 2, cursor });
      seen.push(...page.leads.map((l) => l.lead_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([lead.noPhone, lead.contactOnly, lead.c, lead.b, lead.a]);
    const first = await m.sut.list(reader, { limit: 1, status: 'new' });
    await expect(m.sut.list(reader, { limit: 1, status: 'signed', cursor: first.next_cursor! })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'cursor',
    });
    const callsCursor = (await m.module.get(CallsService).list(reader, { limit: 1 } as Parameters<CallsService['list']>[1])).next_cursor!;
    await expect(m.sut.list(reader, { cursor: callsCursor })).rejects.toMatchObject({ param: 'cursor' });
  });

  it('get: one lead with its intake, every intake field present; a lead without intake has none', async () => {
    const one = await m.sut.get(reader, lead.a);
    expect(one.timezone).toBe('America/Chicago');
    expect(one.lead.lead_id).toBe(lead.a);
    expect(one.intake).toEqual({
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
    const contactOnly = await m.sut.get(reader, lead.contactOnly);
    expect(contactOnly.intake).toBeNull();
    expect(contactOnly.lead.untrusted).toEqual({ name: null, incident_date: null });
  });

  it("another firm's lead is not found like an unknown one; each firm lists only its own", async () => {
    for (const id of [lead.theirs, 'lead_nope']) await expect(m.sut.get(reader, id)).rejects.toMatchObject({ code: 'not_found' });
    expect(await ids({}, other)).toEqual([lead.theirs]);
    expect((await m.sut.get(other, lead.theirs)).lead.lead_id).toBe(lead.theirs);
  });

  it('audits list and detail reads with the key and the ids read', async () => {
    const writer = await m.principal(firm.keys['read-update-leads']);
    const page = await m.sut.list(writer, { limit: 2 });
    const last = async () =>
      (
        await m.sql(`SELECT actor_id, action, resource_type, resource_ids FROM audit_log WHERE org_id = $1 ORDER BY id DESC LIMIT 1`, [
          firm.orgId,
        ])
      )[0];
    expect(await last()).toEqual({
      actor_id: firm.keyIds['read-update-leads'],
      action: 'leads.listed',
      resource_type: 'lead',
      resource_ids: page.leads.map((l) => l.lead_id),
    });
    await m.sut.get(reader, lead.b);
    expect(await last()).toEqual({ actor_id: firm.keyIds.read, action: 'lead.read', resource_type: 'lead', resource_ids: [lead.b] });
  });
});

/** LeadsService.patch (PATCH /v1/leads/{lead_id}, the spec's rules 1 to 6, the body already validated) without HTTP. */
describe('LeadsService.patch', () => {
  type Patch = Parameters<LeadsService['patch']>[2];
  let firm: TestFirm;
  let writer: ApiPrincipal;
  const newLead = async (): Promise<string> =>
    (await m.module.get(IngestionService).ingest(firm.orgId, fullCallDocument(), nextCallId(), { livemode: true })).lead_id!;
  const patch = (leadId: string, body: Patch) => m.sut.patch(writer, leadId, body);
  const refusal = (leadId: string, body: Patch) =>
    patch(leadId, body).then(
      () => {
        throw new Error('the PATCH was not refused');
      },
      (e: unknown) => e as Error & { code: string; message: string; extra: Record<string, any> },
    );
  const stored = async (leadId: string) =>
    (
      await m.sql('SELECT status, external_id, status_reason, version, updated_at, status_updated_at FROM leads WHERE lead_id = $1', [
        leadId,
      ])
    )[0];
  const updates = async (leadId: string) =>
    (await m.sql(`SELECT data::text AS data FROM events WHERE type = 'lead.updated' AND data->>'lead_id' = $1 ORDER BY seq`, [leadId])).map(
      (r) => ({ ...JSON.parse(r.data), _raw: r.data as string }),
    );
  const audits = (leadId: string) =>
    m.sql(
      `SELECT actor_type, actor_id, action, resource_type, resource_ids, details FROM audit_log WHERE org_id = $1 AND $2 = ANY(resource_ids) ORDER BY id`,
      [firm.orgId, leadId],
    );

  beforeAll(async () => {
    firm = await createFirm(m.module);
    writer = await m.principal(firm.keys['read-update-leads']);
  });

  it('sets the status: answers the lead with changed true, moves both times, emits lead.updated exactly shaped, audits it', async () => {
    const leadId = await newLead();
    const before = await stored(leadId);
    const r = await patch(leadId, { status: 'contacted' });
    expect(r).toMatchObject({
      timezone: 'America/Chicago',
      caller_data: 'full',
      changed: true,
      next_step: expect.stringContaining('contacted'),
    });
    expect(r.lead).toMatchObject({ lead_id: leadId, status: 'contacted', external_id: null, status_reason: null });
    expect(r.lead.status_updated_at).toBe(r.lead.updated_at);
    const after = await stored(leadId);
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(after.status_updated_at).toEqual(after.updated_at);
    expect(r.lead.updated_at).toBe(after.updated_at.toISOString());
    const [evt] = await updates(leadId);
    // Member order is part of the contract (the json column keeps it).
    expect(evt._raw).toBe(
      JSON.stringify({
        lead_id: leadId,
        call_id: r.lead.call_id,
        status: 'contacted',
        previous_status: 'new',
        changes: ['status'],
        changed_by: { kind: 'api_key', id: firm.keyIds['read-update-leads'] },
        url: `http://api.test/v1/leads/${leadId}`,
      }),
    );
    expect(await audits(leadId)).toEqual([
      {
        actor_type: 'api_key',
        actor_id: firm.keyIds['read-update-leads'],
        action: 'lead.updated',
        resource_type: 'lead',
        resource_ids: [leadId],
        details: { changes: ['status'], previous_status: 'new', status: 'contacted' },
      },
    ]);
  });

  it('changes nothing and emits nothing when the values are already set (rule 3); such an answer is audited as a read', async () => {
    const leadId = await newLead();
    await patch(leadId, { status: 'signed', external_id: 'M-1' });
    const before = await stored(leadId);
    const bodies: Patch[] = [
      { status: 'signed' },
      { external_id: 'M-1' },
      { status: 'signed', external_id: 'M-1', status_reason: null },
      { status: 'signed', expected_status: 'new' },
    ];
    for (const body of bodies) {
      const r = await patch(leadId, body);
      expect({ body, changed: r.changed, next_step: r.next_step }).toEqual({
        body,
        changed: false,
        next_step: expect.stringContaining('Nothing changed'),
      });
      expect(r.lead).toMatchObject({ status: 'signed', external_id: 'M-1', status_reason: null });
    }
    expect(await stored(leadId)).toEqual(before);
    expect(await updates(leadId)).toHaveLength(1);
    const entries = await audits(leadId);
    expect(entries.map((e) => e.action)).toEqual(['lead.updated', ...bodies.map(() => 'lead.read')]);
    expect(entries[1]).toEqual({
      actor_type: 'api_key',
      actor_id: firm.keyIds['read-update-leads'],
      action: 'lead.read',
      resource_type: 'lead',
      resource_ids: [leadId],
      details: { via: 'patch', answer: 'unchanged' },
    });
  });

  it('replaces sent fields, keeps omitted ones, clears with null, and names exactly the changed fields (rules 2 and 6)', async () => {
    const leadId = await newLead();
    const steps: [Patch, Record<string, unknown>, string[], string, string][] = [
      [{ external_id: 'CASE-1' }, { status: 'new', external_id: 'CASE-1', status_reason: null }, ['external_id'], 'new', 'new'],
      [
        { status_reason: 'Left a voicemail' },
        { status: 'new', external_id: 'CASE-1', status_reason: 'Left a voicemail' },
        ['status_reason'],
        'new',
        'new',
      ],
      [
        { status: 'rejected', status_reason: 'Out of state', external_id: 'CASE-1' },
        { status: 'rejected', external_id: 'CASE-1', status_reason: 'Out of state' },
        ['status', 'status_reason'],
        'rejected',
        'new',
      ],
      [
        { external_id: null },
        { status: 'rejected', external_id: null, status_reason: 'Out of state' },
        ['external_id'],
        'rejected',
        'rejected',
      ],
      [
        { status: 'contacted', external_id: 'CASE-2', status_reason: null },
        { status: 'contacted', external_id: 'CASE-2', status_reason: null },
        ['status', 'external_id', 'status_reason'],
        'contacted',
        'rejected',
      ],
    ];
    let statusUpdatedAt: string | null = null;
    for (const [i, [body, expected, changes, status, previous]] of steps.entries()) {
      const r = await patch(leadId, body);
      expect({ step: i, changed: r.changed }).toEqual({ step: i, changed: true });
      expect(r.lead).toMatchObject(expected);
      if (changes.includes('status')) statusUpdatedAt = r.lead.updated_at;
      expect(r.lead.status_updated_at).toBe(statusUpdatedAt);
      const evts = await updates(leadId);
      expect(evts).toHaveLength(i + 1);
      expect(evts[i]).toMatchObject({ changes, status, previous_status: previous });
    }
  });

  it('an expected_status that differs is a status_conflict carrying the current lead, audited as a read (rule 4)', async () => {
    const leadId = await newLead();
    await patch(leadId, { status: 'contacted', external_id: 'X-1' });
    const before = await stored(leadId);
    const refused = await refusal(leadId, { status: 'signed', expected_status: 'new', status_reason: 'Signed today' });
    expect(refused.code).toBe('status_conflict');
    expect(refused.message).toContain('contacted');
    expect(refused.extra).toMatchObject({ current_status: 'contacted' });
    expect(refused.extra.lead).toEqual((await m.sut.get(writer, leadId)).lead);
    expect(await stored(leadId)).toEqual(before);
    expect(await updates(leadId)).toHaveLength(1);
    expect((await audits(leadId)).filter((e) => e.details?.via === 'patch')).toEqual([
      {
        actor_type: 'api_key',
        actor_id: firm.keyIds['read-update-leads'],
        action: 'lead.read',
        resource_type: 'lead',
        resource_ids: [leadId],
        details: { via: 'patch', answer: 'status_conflict' },
      },
    ]);
    // Already at the requested status: not a conflict.
    expect((await patch(leadId, { status: 'contacted', expected_status: 'new' })).changed).toBe(false);
    // expected_status is ignored without status.
    expect((await patch(leadId, { external_id: 'X-2', expected_status: 'rejected' })).changed).toBe(true);
    // Matching expectation: applied.
    expect((await patch(leadId, { status: 'signed', expected_status: 'contacted' })).lead.status).toBe('signed');
  });

  it('a change that lands between the read and the write is a status_conflict, never overwritten (rule 5)', async () => {
    const leadId = await newLead();
    const blocker = new pg.Client({ connectionString: m.databaseUrl });
    await blocker.connect();
    try {
      // Another writer changes the lead and holds its transaction open.
      await blocker.query('BEGIN');
      await blocker.query(
        `UPDATE leads SET status = 'rejected', status_reason = 'Conflict check failed', version = version + 1 WHERE lead_id = $1`,
        [leadId],
      );
      const [{ pid }] = (await blocker.query('SELECT pg_backend_pid() AS pid')).rows;
      const pending = refusal(leadId, { status: 'signed' });
      // The PATCH has read the old version and waits on the lead's row lock.
      await waitFor(
        async () =>
          (
            await m.sql(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
              [pid],
            )
          )[0].n > 0,
        'the PATCH to block on the lead row',
      );
      await blocker.query('COMMIT');
      const refused = await pending;
      expect(refused.code).toBe('status_conflict');
      expect(refused.message).toContain('rejected');
      expect(refused.extra.lead).toMatchObject({ status: 'rejected', status_reason: 'Conflict check failed' });
      expect((await stored(leadId)).status).toBe('rejected');
      expect(await updates(leadId)).toHaveLength(0);
    } finally {
      await blocker.end();
    }
  });

  it('a lead that is not found writes no audit entry', async () => {
    await expect(patch('lead_unknown', { status: 'contacted' })).rejects.toMatchObject({ code: 'not_found' });
    expect(await m.sql(`SELECT 1 FROM audit_log WHERE org_id = $1 AND 'lead_unknown' = ANY(resource_ids)`, [firm.orgId])).toEqual([]);
  });

  it('keeps the firm-owned fields when the call is re-processed', async () => {
    const callId = nextCallId();
    const ingestion = m.module.get(IngestionService);
    const { lead_id: leadId } = await ingestion.ingest(firm.orgId, fullCallDocument(), callId, { livemode: true });
    await patch(leadId!, { status: 'signed', external_id: 'KEEP-1', status_reason: 'Signed at intake' });
    await ingestion.ingest(firm.orgId, fullCallDocument({ urgency: 'low' }), callId, { livemode: true });
    expect((await m.sut.get(writer, leadId!)).lead).toMatchObject({
      status: 'signed',
      external_id: 'KEEP-1',
      status_reason: 'Signed at intake',
      urgency: 'low',
    });
  });

  it('under many concurrent changes: final state = last successful write, one lead.updated per change, only conflicts refused', async () => {
    const leadId = await newLead();
    const statuses = ['contacted', 'signed', 'rejected'] as const;
    const bodies = Array.from({ length: 48 }, (_, i) => {
      const body: Patch = { status: statuses[i % 3], status_reason: `writer ${i}` };
      if (i % 4 === 1) body.expected_status = statuses[(i + 1) % 3];
      if (i % 5 === 2) body.external_id = `EXT-${i}`;
      return body;
    });
    const answers = await Promise.allSettled(bodies.map((b) => patch(leadId, b)));
    const refused = answers.filter((a) => a.status === 'rejected').map((a) => (a as PromiseRejectedResult).reason);
    expect(refused.filter((e) => e.code !== 'status_conflict')).toEqual([]);
    const changed = answers
      .filter((a) => a.status === 'fulfilled')
      .map((a) => (a as PromiseFulfilledResult<Awaited<ReturnType<LeadsService['patch']>>>).value)
      .filter((a) => a.changed);
    expect(changed.length).toBeGreaterThan(0);

    const events = await updates(leadId);
    expect(events).toHaveLength(changed.length);
    // The events form one chain: each starts from the status the previous one left.
    let status = 'new';
    for (const e of events) {
      expect(e.previous_status).toBe(status);
      status = e.status;
    }
    // Every writer's status_reason is unique, so the final row names the last successful write.
    const final = (await m.sut.get(writer, leadId)).lead;
    expect(changed.filter((a) => a.lead.status_reason === final.status_reason)).toHaveLength(1);
    expect(final).toEqual(changed.find((a) => a.lead.status_reason === final.status_reason)!.lead);
    expect(final.status).toBe(status);
    expect(final.updated_at).toBe(
      changed
        .map((a) => a.lead.updated_at)
        .sort()
        .at(-1),
    );
    expect((await stored(leadId)).version).toBe(1 + changed.length);
  });
});
