import { fullCallDocument, ingestOk, internalEnv, nextCallId } from './support/call-documents';
import { createFirm, type TestFirm } from './support/factories';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Filter values of the calls and leads lists (issue 23, items 4 and 7): a
 * value of the filter's form that can match nothing answers an empty list,
 * only a value not of the form is a 400 naming the parameter; date-times are
 * compared at the precision given, not at a JS Date's milliseconds.
 */
describe('list filter values', () => {
  let t: TestApp;
  let firm: TestFirm;
  let callId: string;
  let leadId: string;
  const START = '2026-04-01T00:00:00.000Z';
  const calls = (query: Record<string, string | number>) => t.get('/v1/calls', { key: firm.keys.read, query });
  const leads = (query: Record<string, string | number>) => t.get('/v1/leads', { key: firm.keys.read, query });
  const callIds = async (query: Record<string, string | number>) => {
    const r = await calls(query);
    expect({ query, status: r.status }).toEqual({ query, status: 200 });
    return r.body.calls.map((c: any) => c.call_id);
  };
  const leadIds = async (query: Record<string, string | number>) => {
    const r = await leads(query);
    expect({ query, status: r.status }).toEqual({ query, status: 200 });
    return r.body.leads.map((l: any) => l.lead_id);
  };

  beforeAll(async () => {
    t = await startTestApp({ env: internalEnv });
    firm = await createFirm(t.app);
    callId = nextCallId('call_filters');
    leadId = (await ingestOk(t, firm.orgId, callId, fullCallDocument({ started_at: START, from: '+1 (312) 555-0177' }))).lead_id;
    await ingestOk(t, firm.orgId, nextCallId('call_filters'), fullCallDocument({ started_at: '2026-03-01T00:00:00.000Z' }));
  });
  afterAll(() => t.close());

  describe('a value of the form that matches nothing is an empty list', () => {
    it.each(['(555) 555-5555', '555.555.5555', '1 555 555 5555', '+1 555-555-5555', '(555) 555-5555 x12', '+999', '0123456789'])(
      'caller_number %j, on calls and on leads',
      async (n) => {
        expect(await callIds({ caller_number: n })).toEqual([]);
        expect(await leadIds({ caller_number: n })).toEqual([]);
      },
    );

    it('a phone number with many separators still matches (no length bound of its own)', async () => {
      expect(await callIds({ caller_number: `+1 (312) ${' '.repeat(80)}555-0177` })).toEqual([callId]);
    });

    it('calls ids longer than any call id are left out', async () => {
      const long = 'c'.repeat(129);
      expect(await callIds({ ids: `${long},${callId}` })).toEqual([callId]);
      expect(await callIds({ ids: 'x'.repeat(500) })).toEqual([]);
    });

    it('a reference without letters or digits (the empty key), or longer than any reference', async () => {
      expect(await callIds({ reference: '---' })).toEqual([]);
      expect(await callIds({ reference: '/' })).toEqual([]);
      // Punctuation is ignored however much of it there is: the key is still the reference's.
      expect(await callIds({ reference: `clm-778 21/b${'-'.repeat(300)}` })).toContain(callId);
    });

    it('leads external_id over 200 and call_id over 128 characters', async () => {
      expect(await leadIds({ external_id: 'e'.repeat(201) })).toEqual([]);
      expect(await leadIds({ call_id: 'c'.repeat(129) })).toEqual([]);
      expect(await leadIds({ call_id: 'not a call id' })).toEqual([]);
      expect(await leadIds({ call_id: callId })).toEqual([leadId]);
    });

    it('webhook deliveries: an unknown event id is an empty list', async () => {
      const r = await t.get('/v1/webhook-deliveries', { key: firm.keys.read, query: { event_id: 'evt_0000000000unknown' } });
      expect(r.status).toBe(200);
      expect(r.body.deliveries).toEqual([]);
    });
  });

  describe('a value not of the form is a 400 naming the parameter', () => {
    it.each(['abc', '12', '555-0123', '+0123', '+1234567890123456', '555-555-5555 call me'])('caller_number %j', async (n) => {
      for (const r of [await calls({ caller_number: n }), await leads({ caller_number: n })]) {
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ code: 'invalid_request', param: 'caller_number' });
      }
    });

    it.each([
      ['/v1/calls', { ids: Array.from({ length: 51 }, (_, i) => `x${i}`).join(',') }, 'ids'],
      ['/v1/calls', { ids: 'a,,b' }, 'ids'],
      ['/v1/webhook-deliveries', { endpoint_id: 'not-a-uuid' }, 'endpoint_id'],
      ['/v1/webhook-deliveries', { event_id: 'event-1' }, 'event_id'],
    ])('%s %j', async (path, query, param) => {
      const r = await t.get(path, { key: firm.keys.read, query });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_request', param });
    });
  });

  it('a cursor stays bound to the filters, long ids included', async () => {
    const other = nextCallId('call_filters');
    await ingestOk(t, firm.orgId, other, fullCallDocument({ started_at: '2026-02-01T00:00:00.000Z' }));
    const long = 'c'.repeat(200);
    const first = await calls({ ids: `${callId},${other},${long}`, limit: 1 });
    expect(first.body.has_more).toBe(true);
    const cursor = first.body.next_cursor;
    expect(await callIds({ ids: `${long},${other},${callId}`, limit: 1, cursor })).toEqual([other]);
    const otherFilters = await calls({ ids: `${callId},${other}`, limit: 1, cursor });
    expect(otherFilters.status).toBe(400);
    expect(otherFilters.body.param).toBe('cursor');
  });

  describe('date-times are compared at the precision given', () => {
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
          await t.sql(
            `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at,
                    to_char((updated_at + interval '1 microsecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS after
               FROM ${table} WHERE org_id = $1 AND ${column} = $2`,
            [firm.orgId, id],
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
      const first = await calls(query);
      expect(first.body.has_more).toBe(true);
      const next = await calls({ ...query, cursor: first.body.next_cursor });
      expect(next.status).toBe(200);
      // The same instant written otherwise is the same filter.
      expect((await calls({ ...query, from: '2026-01-01T01:00:00.000100+01:00', cursor: first.body.next_cursor })).status).toBe(200);
      const moved = await calls({ ...query, from: '2026-01-01T00:00:00.0002Z', cursor: first.body.next_cursor });
      expect(moved.status).toBe(400);
      expect(moved.body.param).toBe('cursor');
    });
  });
});
