import { Database } from '../../src/database/sql';
import { EventsService, EventWaits, feedKeyOf } from '../../src/events';
import { onEachEventsPage, onEachWake, recordEvent } from '../support/events';
import { createFirm } from '../support/factories';
import { waitFor } from '../support/receiver';
import { startTestApp, type HttpResult, type TestApp } from '../support/test-app';
import { createTestKeys } from '../support/test-mode';

/** GET /v1/events?wait= in test mode: a request waits on its own firm's events of its own key's mode. */
describe('waiting on the events feed, by mode', () => {
  let t: TestApp;
  let waits: EventWaits;
  /** Every page query a request runs, by firm and mode (a wrapper that calls through). */
  let pageQueries: { orgId: string; livemode: boolean }[];
  /** Every notification that woke a waiting request, by its feed (firm and mode): a wrapper that calls through. */
  let wakes: { feed: string; why: string }[];

  beforeAll(async () => {
    t = await startTestApp();
    waits = t.app.get(EventWaits);
    pageQueries = [];
    onEachEventsPage(t.app.get(EventsService), (feed) => pageQueries.push({ orgId: feed.orgId, livemode: feed.livemode }));
    wakes = [];
    onEachWake(waits, (feed, why) => wakes.push({ feed, why }));
  });
  afterAll(() => t.close());

  const record = (orgId: string, livemode: boolean) =>
    t.app.get(Database).transaction((m) => recordEvent(t.app.get(EventsService), m, { orgId, type: 'lead.created', data: {}, livemode }));
  const waitingGet = (key: string) => {
    let done = false;
    const result: Promise<HttpResult> = t.get('/v1/events', { key, query: { wait: 20 } }).finally(() => (done = true));
    return { result, settled: () => done };
  };
  const testQueries = (orgId: string) => pageQueries.filter((q) => q.orgId === orgId && !q.livemode).length;
  const testWakes = (orgId: string) => wakes.filter((w) => w.feed === feedKeyOf({ orgId, livemode: false }) && w.why === 'woken').length;

  it("another mode's event neither wakes nor answers a waiting request; its own mode's does", async () => {
    const f = await createFirm(t.app, { publish: false });
    const testKey = (await createTestKeys(t, f.orgId)).read;
    const waitTest = waitingGet(testKey);
    // Subscribed before its first page query: wait for that query too, so the request is waiting on its subscription.
    await waitFor(() => waits.waiting >= 1 && testQueries(f.orgId) >= 1 && waits.listening, 'the test-mode request waiting');
    const probeLive = waitingGet(f.keys.read);
    await waitFor(() => waits.waiting >= 2, 'the live probe waiting');
    const live = await record(f.orgId, true);
    // The live probe is answered: the notification has reached the process.
    expect((await probeLive.result).body.events.map((e: any) => [e.id, e.livemode])).toEqual([[live.envelope.id, true]]);
    expect(waitTest.settled()).toBe(false);
    // Not woken: no notification reached the test-mode request. (Its page query may still run again on the short
    // re-check tick when its first page was held back behind another open transaction in the cluster, such as another
    // test's CREATE DATABASE: a timer, not this event, so the page queries are not counted here.)
    expect(testWakes(f.orgId)).toBe(0);
    const test = await record(f.orgId, false);
    expect((await waitTest.result).body.events.map((e: any) => [e.id, e.livemode])).toEqual([[test.envelope.id, false]]);
  });
});
