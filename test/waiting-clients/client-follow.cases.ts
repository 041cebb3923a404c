import { ApiError, createReceptionistClient, followEvents, type EventLogEntry } from '../../clients/typescript/src/index';
import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { recordEvent, restrictKey } from '../support/events';
import { createFirm } from '../support/factories';
import { waitFor } from '../support/receiver';
import { sharedTestApp } from '../support/shared-app';
import type { TestApp } from '../support/test-app';

describe('typed client: followEvents (GET /v1/events with wait)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await sharedTestApp();
  });

  const record = (orgId: string, type: 'call.completed' | 'lead.created' | 'lead.updated') =>
    t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type, data: {} }));

  function client(key: string) {
    const c = createReceptionistClient(t.baseUrl, key);
    c.use({ onResponse: ({ request, response }) => t.check(request.method, request.url, response) });
    return c;
  }

  it('yields events as they commit, of the types asked, resuming after the last one yielded', async () => {
    const f = await createFirm(t.app, { publish: false });
    const before = await record(f.orgId, 'call.completed');
    const stop = new AbortController();
    const seen: EventLogEntry[] = [];
    const following = (async () => {
      const feed = followEvents(client(f.keys.read), {
        after: before.envelope.id,
        types: ['call.completed', 'lead.created'],
        wait: 5,
        signal: stop.signal,
      });
      for await (const e of feed) seen.push(e);
    })();
    const a = await record(f.orgId, 'lead.created');
    await waitFor(() => seen.length === 1, 'the first event');
    await record(f.orgId, 'lead.updated'); // not asked for: passed over
    const b = await record(f.orgId, 'call.completed');
    await waitFor(() => seen.length === 2, 'the second event');
    stop.abort();
    await following;
    expect(seen.map((e) => e.id)).toEqual([a.envelope.id, b.envelope.id]);

    // A new loop started with the last yielded id resumes there: only what came since.
    const c = await record(f.orgId, 'lead.created');
    const again = followEvents(client(f.keys.read), { after: b.envelope.id, wait: 5 });
    const next = await again.next();
    await again.return(undefined);
    expect(next.value?.id).toBe(c.envelope.id);
  });

  it('goes on past an after a failover lost (400 after_lost) from restart_after, yielding nothing twice', async () => {
    const f = await createFirm(t.app, { publish: false });
    const [e1, e2, e3] = [
      await record(f.orgId, 'lead.created'),
      await record(f.orgId, 'lead.created'),
      await record(f.orgId, 'lead.created'),
    ];
    const stop = new AbortController();
    const seen: string[] = [];
    const following = (async () => {
      for await (const e of followEvents(client(f.keys.read), { wait: 5, signal: stop.signal })) seen.push(e.id);
    })();
    await waitFor(() => seen.length === 3, 'the three events');
    // A promotion lost e3, where the loop stands; what is written next wakes it.
    await t.sql('DELETE FROM events WHERE id = $1', [e3.envelope.id]);
    const e4 = await record(f.orgId, 'lead.created');
    await waitFor(() => seen.length === 4, 'the event written after the failover');
    stop.abort();
    await following;
    expect(seen).toEqual([e1, e2, e3, e4].map((e) => e.envelope.id));
  });

  it('a key without webhooks:read ends the iteration with a 403 ApiError', async () => {
    const f = await createFirm(t.app, { publish: false });
    await restrictKey(t, f.keyIds.read, ['calls:read']);
    await expect(followEvents(client(f.keys.read), { wait: 1 }).next()).rejects.toMatchObject({ status: 403 });
    await expect(followEvents(client(f.keys.read), { wait: 1 }).next()).rejects.toBeInstanceOf(ApiError);
  });
});
