import { fullCallDocument, ingestOk, internalEnv, unansweredCallDocument } from '../support/call-documents';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

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

/**
 * The HTTP contract of the calls reads: the answers' status and exact shape, the query refusals, scopes and 404s.
 * The rules behind them (order, paging, filters and their values, as_of, explanations, audit) are tested on
 * CallsService: test/medium/records/calls.cases.ts.
 */
describe('calls: GET /v1/calls and GET /v1/calls/{call_id}', () => {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  const ids = { full: 'call_full', unanswered: 'call_unanswered', others: 'call_other_firm' };
  const list = (query: Record<string, string | number> = {}, key = firm.keys.read) => t.get('/v1/calls', { key, query });

  beforeAll(async () => {
    t = await sharedTestApp(internalEnv);
    [firm, other] = await Promise.all([createFirm(t.app), createFirm(t.app, { timezone: 'Europe/Paris' })]);
    await ingestOk(t, firm.orgId, ids.full, fullCallDocument());
    await ingestOk(t, firm.orgId, ids.unanswered, unansweredCallDocument());
    await ingestOk(t, other.orgId, ids.others, fullCallDocument());
  });

  describe('list', () => {
    it('answers the exact envelope and items', async () => {
      const r = await list({ limit: 1 });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body)).toEqual(LIST_KEYS);
      expect(r.body).toMatchObject({ timezone: 'America/Chicago', caller_data: 'full', has_more: true, truncated: false, note: null });
      expect(r.body.next_cursor).toEqual(expect.any(String));
      const all = await list();
      expect(all.body.calls.map((c: any) => c.call_id)).toEqual([ids.unanswered, ids.full]);
      for (const c of all.body.calls) expect(Object.keys(c)).toEqual(ITEM_KEYS);
      expect(all.body).toMatchObject({ has_more: false, next_cursor: null });
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
      [{ caller_number: 'abc' }, 'caller_number'],
      [{ ids: Array.from({ length: 51 }, (_, i) => `x${i}`).join(',') }, 'ids'],
      [{ ids: 'a,,b' }, 'ids'],
      [{ cursor: 'not-a-cursor' }, 'cursor'],
    ])('refuses %j with 400 naming %s', async (query, param) => {
      const r = await list(query as Record<string, string>);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_request', param });
    });

    it('accepts 50 ids', async () => {
      const fifty = Array.from({ length: 50 }, (_, i) => `x${i}`).join(',');
      expect((await list({ ids: fifty })).status).toBe(200);
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
  });

  describe('detail', () => {
    it('answers the call with conversation_summary, handling, explanation, config_version and transcript_covers', async () => {
      const r = await t.get(`/v1/calls/${ids.full}`, { key: firm.keys.read });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body)).toEqual(['timezone', 'caller_data', 'call']);
      expect(r.body.timezone).toBe('America/Chicago');
      expect(r.body.caller_data).toBe('full');
      expect(Object.keys(r.body.call)).toEqual(DETAIL_KEYS);
      expect(Object.keys(r.body.call.untrusted)).toEqual(['summary', 'caller_name', 'details', 'conversation_summary']);
      const u = await t.get(`/v1/calls/${ids.unanswered}`, { key: firm.keys.read });
      expect(u.status).toBe(200);
      expect(u.body.call).toMatchObject({ handling: null, explanation: [], config_version: null, transcript_covers: null });
    });

    it("answers 404 for another firm's call and for an unknown one", async () => {
      const r = await t.get(`/v1/calls/${ids.others}`, { key: firm.keys.read });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
      expect((await t.get('/v1/calls/nope', { key: firm.keys.read })).status).toBe(404);
      expect((await t.get(`/v1/calls/${ids.others}`, { key: other.keys.read })).status).toBe(200);
    });
  });
});
