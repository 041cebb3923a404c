import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { firmEventsListable, recordEvent, restrictKey } from '../support/events';
import { createFirm, type TestFirm } from '../support/factories';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

/**
 * The HTTP contract of the events log: the answers' status and exact envelope, the refusals, scope and 404s. The
 * rules behind it (commit-safe order, paging, type filter, retention, rolled-back and held-back events, catch-up
 * under concurrent writers) are tested on EventsService: test/medium/delivery/events.cases.ts.
 */
describe('events log (GET /v1/events, GET /v1/events/{id})', () => {
  let t: TestApp;
  let firm: TestFirm;
  let other: TestFirm;
  let key: string;
  const record = (orgId: string, type: 'call.completed' | 'lead.created' | 'lead.updated', data: Record<string, unknown>) =>
    t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type, data }));

  beforeAll(async () => {
    t = await sharedTestApp();
    firm = await createFirm(t.app, { publish: false });
    other = await createFirm(t.app, { publish: false });
    key = firm.keys['read-no-transcripts'];
  });

  it('an empty log answers an empty page', async () => {
    const fresh = await createFirm(t.app, { publish: false });
    const r = await t.get('/v1/events', { key: fresh.keys.read });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ events: [], has_more: false, next_after: null });
  });

  describe('with events', () => {
    const ids: string[] = [];
    beforeAll(async () => {
      const a = await record(firm.orgId, 'call.completed', { call_id: 'call_1', answered: true });
      const b = await record(firm.orgId, 'lead.created', { lead_id: 'lead_1', call_id: 'call_1', status: 'new' });
      const c = await record(firm.orgId, 'lead.updated', { lead_id: 'lead_1', changes: ['status'] });
      await record(other.orgId, 'lead.created', { lead_id: 'lead_x' });
      ids.push(a.envelope.id, b.envelope.id, c.envelope.id);
      await firmEventsListable(t, firm.orgId, other.orgId);
    });

    it("lists the firm's events oldest first with the exact envelope", async () => {
      const r = await t.get('/v1/events', { key });
      expect(r.status).toBe(200);
      expect(r.body.has_more).toBe(false);
      expect(r.body.next_after).toBe(ids[2]);
      expect(r.body.events.map((e: any) => e.id)).toEqual(ids);
      const first = r.body.events[0];
      expect(Object.keys(first)).toEqual(['id', 'type', 'timestamp', 'org', 'test', 'livemode', 'data']);
      expect(first).toEqual({
        id: ids[0],
        type: 'call.completed',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        org: { id: firm.orgId },
        test: false,
        livemode: true,
        data: expect.objectContaining({ call_id: 'call_1', answered: true }),
      });
      expect(first.id).toMatch(/^evt_[0-9a-z]{32}$/);
    });

    it('GET /v1/events/{id} answers the same envelope as the list', async () => {
      const list = await t.get('/v1/events', { key });
      const one = await t.get(`/v1/events/${ids[1]}`, { key });
      expect(one.status).toBe(200);
      expect(one.text).toBe(JSON.stringify(list.body.events[1]));
    });

    it('refuses bad parameters with 400 naming the parameter', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ limit: '0' }, 'limit'],
        [{ limit: '101' }, 'limit'],
        [{ limit: 'ten' }, 'limit'],
        [{ type: 'call.started' }, 'type'],
        [{ after: 'lead_123' }, 'after'],
        [{ cursor: 'x' }, 'cursor'],
      ];
      for (const [query, param] of cases) {
        const r = await t.get('/v1/events', { key, query });
        expect({ query, status: r.status, code: r.body.code, param: r.body.param }).toEqual({
          query,
          status: 400,
          code: 'invalid_request',
          param,
        });
      }
    });

    it("GET /v1/events/{id}: 404 for unknown and for another firm's event, 400 for a malformed id", async () => {
      const theirs = (await t.get('/v1/events', { key: other.keys.read })).body.events[0].id;
      expect((await t.get(`/v1/events/${theirs}`, { key: other.keys.read })).status).toBe(200);
      const r = await t.get(`/v1/events/${theirs}`, { key });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
      expect((await t.get('/v1/events/evt_00000000000000000000000000', { key })).status).toBe(404);
      const bad = await t.get('/v1/events/call_123', { key });
      expect(bad.status).toBe(400);
      expect(bad.body.param).toBe('event_id');
    });

    it('a key without webhooks:read gets 403 insufficient_scope on both routes; no key gets 401', async () => {
      await restrictKey(t, firm.keyIds.read, ['org:read', 'calls:read', 'leads:read']);
      for (const path of ['/v1/events', `/v1/events/${ids[0]}`]) {
        const r = await t.get(path, { key: firm.keys.read });
        expect(r.status).toBe(403);
        expect(r.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'webhooks:read' });
        expect((await t.get(path)).status).toBe(401);
      }
    });
  });
});
