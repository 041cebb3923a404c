import pg from 'pg';
import { fullCallDocument, ingestOk, internalEnv, nextCallId } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';
import { waitFor } from './support/receiver';

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
    t = await startTestApp({ env: internalEnv });
    [firm, other] = await Promise.all([createFirm(t.app), createFirm(t.app)]);
    writeKey = firm.keys['read-update-leads'];
  });
  afterAll(() => t.close());

  it('sets the status: answers {timezone, caller_data, lead, changed, next_step}, moves both times, emits lead.updated in the same transaction', async () => {
    const leadId = await newLead();
    const before = await stored(leadId);
    const r = await patch(leadId, { status: 'contacted' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['timezone', 'caller_data', 'lead', 'changed', 'next_step']);
    expect(r.body).toMatchObject({ timezone: 'America/Chicago', caller_data: 'full', changed: true });
    expect(typeof r.body.next_step).toBe('string');
    expect(r.body.lead).toMatchObject({ lead_id: leadId, status: 'contacted', external_id: null, status_reason: null });
    expect(r.body.lead.status_updated_at).toBe(r.body.lead.updated_at);
    const after = await stored(leadId);
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(after.status_updated_at).toEqual(after.updated_at);
    expect(r.body.lead.updated_at).toBe(after.updated_at.toISOString());
    const [evt] = await updates(leadId);
    expect(evt._raw).toBe(
      JSON.stringify({
        lead_id: leadId,
        call_id: r.body.lead.call_id,
        status: 'contacted',
        previous_status: 'new',
        changes: ['status'],
        changed_by: { kind: 'api_key', id: firm.keyIds['read-update-leads'] },
        url: `http://api.test/v1/leads/${leadId}`,
      }),
    );
    const [change] = await t.sql(
      `SELECT txid::text AS txid FROM leads l JOIN events e ON e.data->>'lead_id' = l.lead_id WHERE l.lead_id = $1 AND e.type = 'lead.updated'`,
      [leadId],
    );
    // The lead row's xmin is the writing transaction; the event was inserted by the same one.
    const [xmin] = await t.sql(`SELECT xmin::text AS x FROM leads WHERE lead_id = $1`, [leadId]);
    expect(BigInt(change.txid) % 2n ** 32n).toBe(BigInt(xmin.x));
    const [audit] = await t.sql(
      `SELECT actor_id, action, resource_ids, details FROM audit_log WHERE org_id = $1 AND action = 'lead.updated' ORDER BY id DESC LIMIT 1`,
      [firm.orgId],
    );
    expect(audit).toEqual({
      actor_id: firm.keyIds['read-update-leads'],
      action: 'lead.updated',
      resource_ids: [leadId],
      details: { changes: ['status'], previous_status: 'new', status: 'contacted' },
    });
  });

  it('changes nothing and emits nothing when the values are already set (rule 3), safe to retry', async () => {
    const leadId = await newLead();
    await patch(leadId, { status: 'signed', external_id: 'M-1' });
    const before = await stored(leadId);
    for (const body of [
      { status: 'signed' },
      { external_id: 'M-1' },
      { status: 'signed', external_id: 'M-1', status_reason: null },
      { status: 'signed', expected_status: 'new' },
    ]) {
      const r = await patch(leadId, body);
      expect(r.status).toBe(200);
      expect(r.body.changed).toBe(false);
      expect(r.body.lead).toMatchObject({ status: 'signed', external_id: 'M-1', status_reason: null });
    }
    expect(await stored(leadId)).toEqual(before);
    expect(await updates(leadId)).toHaveLength(1);
  });

  it('replaces sent fields, keeps omitted ones, clears with null, and names exactly the changed fields (rules 2 and 6)', async () => {
    const leadId = await newLead();
    const steps: [Record<string, unknown>, Record<string, unknown>, string[], string, string][] = [
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
      expect({ step: i, status: r.status, changed: r.body.changed }).toEqual({ step: i, status: 200, changed: true });
      expect(r.body.lead).toMatchObject(expected);
      if (changes.includes('status')) statusUpdatedAt = r.body.lead.updated_at;
      expect(r.body.lead.status_updated_at).toBe(statusUpdatedAt);
      const evts = await updates(leadId);
      expect(evts).toHaveLength(i + 1);
      expect(evts[i]).toMatchObject({ changes, status, previous_status: previous });
    }
  });

  it('answers 409 status_conflict when expected_status differs, with the current status in detail and the lead in lead (rule 4)', async () => {
    const leadId = await newLead();
    await patch(leadId, { status: 'contacted', external_id: 'X-1' });
    const before = await stored(leadId);
    const r = await patch(leadId, { status: 'signed', expected_status: 'new', status_reason: 'Signed today' });
    expect(r.status).toBe(409);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.code).toBe('status_conflict');
    expect(r.body.detail).toContain('contacted');
    const current = await t.get(`/v1/leads/${leadId}`, { key: firm.keys.read });
    expect(r.body.lead).toEqual(current.body.lead);
    expect(await stored(leadId)).toEqual(before);
    expect(await updates(leadId)).toHaveLength(1);
    // Already at the requested status: not a conflict.
    const same = await patch(leadId, { status: 'contacted', expected_status: 'new' });
    expect(same.status).toBe(200);
    expect(same.body.changed).toBe(false);
    // expected_status is ignored without status.
    const ignored = await patch(leadId, { external_id: 'X-2', expected_status: 'rejected' });
    expect(ignored.status).toBe(200);
    expect(ignored.body.changed).toBe(true);
    // Matching expectation: applied.
    const ok = await patch(leadId, { status: 'signed', expected_status: 'contacted' });
    expect(ok.status).toBe(200);
    expect(ok.body.lead.status).toBe('signed');
  });

  it('answers 409 when another change lands between the read and the write, never overwriting it (rule 5)', async () => {
    const leadId = await newLead();
    const blocker = new pg.Client({ connectionString: t.databaseUrl });
    await blocker.connect();
    try {
      // Another writer changes the lead and holds its transaction open.
      await blocker.query('BEGIN');
      await blocker.query(
        `UPDATE leads SET status = 'rejected', status_reason = 'Conflict check failed', version = version + 1 WHERE lead_id = $1`,
        [leadId],
      );
      const pending = patch(leadId, { status: 'signed' });
      // Wait until the PATCH has read the old version and is blocked writing.
      await waitFor(async () => {
        const [w] = await t.sql(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE leads l SET%'`,
        );
        return w.n > 0;
      }, 'the PATCH to block on the lead row');
      await blocker.query('COMMIT');
      const r = await pending;
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('status_conflict');
      expect(r.body.detail).toContain('rejected');
      expect(r.body.lead).toMatchObject({ status: 'rejected', status_reason: 'Conflict check failed' });
      expect((await stored(leadId)).status).toBe('rejected');
      expect(await updates(leadId)).toHaveLength(0);
    } finally {
      await blocker.end();
    }
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

  it('keeps the firm-owned fields when the call is re-processed', async () => {
    const callId = nextCallId();
    const { lead_id: leadId } = await ingestOk(t, firm.orgId, callId, fullCallDocument());
    await patch(leadId, { status: 'signed', external_id: 'KEEP-1', status_reason: 'Signed at intake' });
    await ingestOk(t, firm.orgId, callId, fullCallDocument({ urgency: 'low' }));
    const r = await t.get(`/v1/leads/${leadId}`, { key: firm.keys.read });
    expect(r.body.lead).toMatchObject({ status: 'signed', external_id: 'KEEP-1', status_reason: 'Signed at intake', urgency: 'low' });
  });

  it('under many concurrent PATCHes: final state = last successful write, one lead.updated per change, only 200s and 409s', async () => {
    const leadId = await newLead();
    const statuses = ['contacted', 'signed', 'rejected'];
    const bodies = Array.from({ length: 48 }, (_, i) => {
      const body: Record<string, unknown> = { status: statuses[i % 3], status_reason: `writer ${i}` };
      if (i % 4 === 1) body.expected_status = statuses[(i + 1) % 3];
      if (i % 5 === 2) body.external_id = `EXT-${i}`;
      return body;
    });
    const answers = await Promise.all(bodies.map((b) => patch(leadId, b)));
    expect(answers.filter((a) => a.status !== 200 && a.status !== 409)).toEqual([]);
    const changed = answers.filter((a) => a.status === 200 && a.body.changed === true);
    const conflicts = answers.filter((a) => a.status === 409);
    expect(changed.length).toBeGreaterThan(0);
    for (const c of conflicts) expect(c.body.code).toBe('status_conflict');
    for (const a of answers.filter((x) => x.status === 200 && !x.body.changed)) expect(a.body.changed).toBe(false);

    const events = await updates(leadId);
    expect(events).toHaveLength(changed.length);
    // The events form one chain: each starts from the status the previous one left.
    let status = 'new';
    for (const e of events) {
      expect(e.previous_status).toBe(status);
      status = e.status;
    }
    // Every writer's status_reason is unique, so the final row names the last successful write.
    const final = (await t.get(`/v1/leads/${leadId}`, { key: firm.keys.read })).body.lead;
    const last = changed.find((a) => a.body.lead.status_reason === final.status_reason);
    expect(changed.filter((a) => a.body.lead.status_reason === final.status_reason)).toHaveLength(1);
    expect(final).toEqual(last!.body.lead);
    expect(final.status).toBe(status);
    expect(final.updated_at).toBe(
      changed
        .map((a) => a.body.lead.updated_at)
        .sort()
        .at(-1),
    );
    const [row] = await t.sql('SELECT version FROM leads WHERE lead_id = $1', [leadId]);
    expect(row.version).toBe(1 + changed.length);
  });
});
