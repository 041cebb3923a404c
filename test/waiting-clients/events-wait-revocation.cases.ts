import { ApiKeyService } from '../../src/auth';
import { EventWaits } from '../../src/events';
import { IngestionService } from '../../src/ingestion';
import { fullCallDocument, nextCallId } from '../support/call-documents';
import { runCli } from '../support/cli';
import { createTestDatabase } from '../support/database';
import { firmEventsListable } from '../support/events';
import { createFirm, type TestFirm } from '../support/factories';
import type { HttpResult } from '../support/http';
import { serviceEnv, SpreadClient, startService, stopService, type ServiceProcess } from '../support/processes';
import { waitFor } from '../support/receiver';
import { startTestApp, type TestApp } from '../support/test-app';

/** A waiting GET /v1/events, and when it was answered (0 while it waits). */
interface Waiter {
  via: number;
  result: Promise<HttpResult>;
  answeredAt: () => number;
}

function waiter(via: number, request: Promise<HttpResult>): Waiter {
  let at = 0;
  const result = request.finally(() => (at = Date.now()));
  return { via, result, answeredAt: () => at };
}

/** A firm with a lead to change, and the position of its last event (where a follower waits). */
async function firmWithLead(fixtures: TestApp): Promise<{ firm: TestFirm; leadId: string; last: string }> {
  const firm = await createFirm(fixtures.app, { publish: false });
  const callId = nextCallId('call_rv');
  const { lead_id } = await fixtures.app.get(IngestionService).ingest(firm.orgId, fullCallDocument(), callId, { livemode: true });
  await firmEventsListable(fixtures, firm.orgId);
  const events = await fixtures.get('/v1/events', { key: firm.keys.read, query: { limit: 100 } });
  expect(events.body.has_more).toBe(false);
  return { firm, leadId: lead_id!, last: events.body.next_after };
}

/**
 * Every waiter answered 401 with `detail`, or an empty page: none carries the event committed after the key stopped.
 * Those that were waiting when it stopped answered only once that event woke them.
 */
async function expectNoEventAfterTheKeyStopped(waiters: Waiter[], detail: string, changedAt: number): Promise<void> {
  const answers = await Promise.all(waiters.map((w) => w.result));
  for (const r of answers) {
    if (r.status === 200) expect(r.body).toMatchObject({ events: [] });
    else expect({ status: r.status, code: r.body.code, detail: r.body.detail }).toEqual({ status: 401, code: 'unauthorized', detail });
  }
  // The wake path is what is proved: at least one waiter of each process was still waiting when the change came.
  for (const via of new Set(waiters.map((w) => w.via))) {
    const woken = waiters.filter((w) => w.via === via && w.answeredAt() >= changedAt);
    expect({ via, woken: woken.length > 0 }).toEqual({ via, woken: true });
  }
}

describe('a waiting events request whose key stops while it waits gets no later event', () => {
  describe('revoked with the CLI, waiters in two compiled api processes', () => {
    let databaseUrl: string;
    let fixtures: TestApp; // in-process, only to create firms and keys (dashboard actions have no API)
    const apis: ServiceProcess[] = [];
    let client: SpreadClient;

    beforeAll(async () => {
      databaseUrl = await createTestDatabase();
      fixtures = await startTestApp({ databaseUrl, env: { ROLE: 'api' } });
      const env = serviceEnv(databaseUrl);
      apis.push(...(await Promise.all([startService('api', env), startService('api', env)])));
      client = new SpreadClient(apis);
    }, 90_000);
    afterAll(async () => {
      await Promise.all(apis.map((p) => stopService(p)));
      await fixtures?.close();
    });

    /** The processes that have a LISTEN connection for waiting requests: each opens it on its first wait. */
    const listeners = async () =>
      (
        await fixtures.sql(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'events-listener' AND datname = current_database()`,
        )
      )[0].n as number;

    it('three waiters in each process answer 401 (or an empty page), never the lead change committed after the revocation', async () => {
      const { firm, leadId, last } = await firmWithLead(fixtures);
      const { key, summary } = await fixtures.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'follower', set: 'read' });
      const waiters = [0, 1, 0, 1, 0, 1].map((via) =>
        waiter(via, client.via(via, 'GET', '/v1/events', { key, query: { wait: 30, after: last } })),
      );
      await waitFor(async () => (await listeners()) >= 2, 'both processes to hold waiting requests', 30_000);

      const revoked = await runCli(['key', 'revoke', '--id', summary.id, '--json'], { databaseUrl });
      expect(revoked.json).toMatchObject({ id: summary.id, status: 'revoked' });
      const changedAt = Date.now();
      const patched = await client.via(1, 'PATCH', `/v1/leads/${leadId}`, {
        key: firm.keys['read-update-leads'],
        body: { status: 'contacted' },
      });
      expect(patched.status).toBe(200);

      await expectNoEventAfterTheKeyStopped(waiters, 'The API key has been revoked.', changedAt);
      // The key's next request, in either process, is refused the same way.
      for (const via of [0, 1]) expect((await client.via(via, 'GET', '/v1/events', { key })).status).toBe(401);
    }, 120_000);
  });

  describe('expired on the clock, waiters in two api processes', () => {
    let one: TestApp;
    let two: TestApp;

    beforeAll(async () => {
      const databaseUrl = await createTestDatabase();
      [one, two] = await Promise.all([
        startTestApp({ databaseUrl, env: { ROLE: 'api' } }),
        startTestApp({ databaseUrl, env: { ROLE: 'api' } }),
      ]);
    });
    afterAll(async () => {
      await one?.close();
      await two?.close();
    });

    it('three waiters in each answer 401 once the key has expired, never the lead change committed after it', async () => {
      const { firm, leadId, last } = await firmWithLead(one);
      const expiresAt = new Date(one.clock.now().getTime() + 60_000);
      const { key } = await one.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'short-lived', set: 'read', expiresAt });
      const apps = [one, two];
      const waiters = [0, 1, 0, 1, 0, 1].map((via) => waiter(via, apps[via].get('/v1/events', { key, query: { wait: 30, after: last } })));
      for (const app of apps) await waitFor(() => app.app.get(EventWaits).waiting === 3, 'three waiting requests in each process', 30_000);
      try {
        // Each process reads time from its own clock: both move past the expiry while the requests wait.
        for (const app of apps) app.clock.advance(60_001);
        const changedAt = Date.now();
        const patched = await one.request('PATCH', `/v1/leads/${leadId}`, {
          key: firm.keys['read-update-leads'],
          body: { status: 'contacted' },
        });
        expect(patched.status).toBe(200);
        await expectNoEventAfterTheKeyStopped(waiters, 'The API key has expired.', changedAt);
        // Every waiter was woken (none had answered before the change), and none waits any more.
        expect(waiters.every((w) => w.answeredAt() >= changedAt)).toBe(true);
        for (const app of apps) expect(app.app.get(EventWaits).waiting).toBe(0);
      } finally {
        for (const app of apps) app.clock.reset();
      }
    }, 120_000);

    it('a key revoked while its request waits and nothing happens answers 401 when the wait ends, not an empty page', async () => {
      const { firm, last } = await firmWithLead(one);
      const { key, summary } = await one.app.get(ApiKeyService).create({ orgId: firm.orgId, name: 'quiet', set: 'read' });
      const waiting = one.get('/v1/events', { key, query: { wait: 2, after: last } });
      await waitFor(() => one.app.get(EventWaits).waiting === 1, 'the request to wait', 30_000);
      await one.app.get(ApiKeyService).revoke(summary.id);
      const answer = await waiting;
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 401, code: 'unauthorized' });
    }, 60_000);
  });
});
