import pg from 'pg';
import { PassThrough } from 'node:stream';
import { WebhookEndpointsService } from '../src/webhooks';
import { fullCallDocument, internalEnv, nextCallId, putCall } from './support/call-documents';
import { createTestDatabase } from './support/database';
import { createFirm, type TestFirm } from './support/factories';
import { OwnPostgres } from './support/own-postgres';
import { Receiver, waitFor } from './support/receiver';
import { serviceEnv, startService } from './support/processes';
import { checkExchange, servedConformance } from './support/conformance';
import { rawConnection } from './support/raw-http';
import { startTestApp, TEST_INTERNAL_TOKEN, type HttpResult, type TestApp } from './support/test-app';

/**
 * The database goes away under a running service. Bounds documented in the
 * README (DATABASE_STATEMENT_TIMEOUT): a request fails within the statement
 * timeout (2 s here) or the 3 s connect timeout, so 8 s is a generous ceiling
 * for an answer; recovery must follow within 10 s of the database coming back.
 */
const STATEMENT_TIMEOUT_MS = 2000;
const ANSWER_CEILING_MS = 8000;
const RECOVERY_MS = 10_000;
const METRICS_TOKEN = 'metrics-token-0123456789';

describe('database outage on a PostgreSQL of its own', () => {
  let db: OwnPostgres;
  let t: TestApp;
  let rx: Receiver;
  let firm: TestFirm;
  /** While true the receiver answers 500: deliveries stay pending with a retry due. */
  let failing = false;
  /** Assertions' own connections, which expect the server to go away (t.sql's pool does not). */
  let pool: pg.Pool;
  const sql = async (text: string, params?: unknown[]) => (await pool.query(text, params)).rows;
  /** The app's log lines, parsed. */
  const logged: Record<string, any>[] = [];

  beforeAll(async () => {
    db = await OwnPostgres.start();
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    pool.on('error', () => undefined);
    rx = await Receiver.start();
    rx.on('/hook', (_req, res) => {
      res.writeHead(failing ? 500 : 200);
      res.end();
    });
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) =>
      logged.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, any>),
      ),
    );
    t = await startTestApp({
      databaseUrl: db.url,
      logStream,
      env: {
        ...internalEnv,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_SCHEDULE: Array(20).fill('1s').join(','),
        DATABASE_STATEMENT_TIMEOUT: `${STATEMENT_TIMEOUT_MS}ms`,
        METRICS_TOKEN: METRICS_TOKEN,
        // Many of one key's requests meet the outage at once: each must get the outage's 503, not wait in the key's
        // line behind the others (which answers 429 after 2 s, tested in operators/concurrent-requests.cases.ts).
        CONCURRENT_REQUESTS_PER_KEY: '100',
      },
    });
    firm = await createFirm(t.app);
    await t.app.get(WebhookEndpointsService).create({ orgId: firm.orgId, url: rx.url('/hook'), eventTypes: 'call.completed' });
  });
  afterAll(async () => {
    await db.thaw();
    await t.close();
    await rx.close();
    await pool.end();
    await db.close();
  });

  /** A request and how long its answer took. */
  const timed = async (fn: () => Promise<HttpResult>): Promise<{ r: HttpResult; ms: number }> => {
    const started = Date.now();
    const r = await fn();
    return { r, ms: Date.now() - started };
  };
  const account = () => t.get('/v1/account', { key: firm.keys.read });
  const ingest = (callId: string) => putCall(t, firm.orgId, callId, fullCallDocument());
  const deliveredIds = () => new Set(rx.at('/hook').map((r) => r.headers['webhook-id'] as string));

  /** Every answer while the database is away: 503 service_unavailable with Retry-After, in bounded time. */
  const expectUnavailable = async (requests: (() => Promise<HttpResult>)[]) => {
    const answers = await Promise.all(requests.map(timed));
    for (const { r, ms } of answers) {
      expect({ status: r.status, code: r.body?.code, retryAfter: r.headers.get('retry-after') }).toEqual({
        status: 503,
        code: 'service_unavailable',
        retryAfter: expect.stringMatching(/^\d+$/),
      });
      expect(ms).toBeLessThan(ANSWER_CEILING_MS);
    }
  };

  const expectRecovered = async (since: number) => {
    await waitFor(async () => (await account()).status === 200, 'the API to answer again', RECOVERY_MS);
    await waitFor(async () => (await t.get('/health/ready')).status === 200, 'readiness to return', RECOVERY_MS);
    expect(Date.now() - since).toBeLessThan(RECOVERY_MS);
  };

  const scrape = async () => (await t.get('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text;
  const sample = (text: string, name: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`${name} `))
        ?.slice(name.length + 1),
    );

  /**
   * From now on, an outage: one warning when it starts and one line when the database is back (with how long it was
   * away and how many requests were answered 503), whatever the number of requests refused meanwhile or the
   * background loops (dispatcher, mail outbox) that failed; the metrics count the outage and the 503s.
   */
  const outageLog = async () => {
    const from = logged.length;
    const before = await scrape();
    const since = Date.now();
    return {
      loggedOnce: async (answered503: number) => {
        const back = await waitFor(
          () => logged.slice(from).find((l) => l.msg === 'database reachable again'),
          'the line saying it is back',
          RECOVERY_MS,
        );
        const lines = logged.slice(from);
        const unreachable = lines.filter((l) => /^database unreachable/.test(l.msg));
        expect(unreachable).toHaveLength(1);
        expect(unreachable[0]).toMatchObject({ level: 40, error: { message: expect.any(String) }, noticed_by: expect.any(String) });
        expect(lines.filter((l) => l.msg === 'database reachable again')).toHaveLength(1);
        // Nothing else at warning level or above: no line per request, per poll or per reconnect attempt.
        expect(lines.filter((l) => l.level >= 40 && l !== unreachable[0]).map((l) => l.msg)).toEqual([]);
        expect(back.answered_503).toBeGreaterThanOrEqual(answered503);
        expect(back.outage_ms).toBeGreaterThan(0);
        expect(back.outage_ms).toBeLessThanOrEqual(Date.now() - since);
        expect(back.reqId).toBeUndefined();
        const after = await scrape();
        expect(sample(after, 'db_outages_total') - sample(before, 'db_outages_total')).toBe(1);
        expect(sample(after, 'db_unavailable_answers_total') - sample(before, 'db_unavailable_answers_total')).toBe(back.answered_503);
        expect(sample(after, 'db_unreachable')).toBe(0);
      },
    };
  };

  /** Calls ingested (and acknowledged) while the receiver fails: pending deliveries with attempts left. */
  const pendingDeliveries = async (n: number): Promise<string[]> => {
    failing = true;
    const callIds = Array.from({ length: n }, () => nextCallId('call_out'));
    for (const id of callIds) expect((await ingest(id)).status).toBe(201);
    const rows = await sql(`SELECT id FROM events WHERE org_id = $1 AND type = 'call.completed' AND data->>'call_id' = ANY($2)`, [
      firm.orgId,
      callIds,
    ]);
    expect(rows).toHaveLength(n);
    const ids = rows.map((r) => r.id as string);
    await waitFor(
      async () =>
        (await sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1) AND attempt_count >= 1`, [ids]))[0].n === n,
      'a first (failed) attempt of each delivery',
      10_000,
    );
    return ids;
  };

  /** After recovery: each event delivered (at least once), none failed, the endpoint still on. */
  const expectAllDelivered = async (eventIds: string[]) => {
    failing = false;
    await waitFor(() => eventIds.every((id) => deliveredIds().has(id)), 'every event to be delivered', RECOVERY_MS);
    await waitFor(
      async () =>
        (await sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1) AND status = 'succeeded'`, [eventIds]))[0]
          .n === eventIds.length,
      'every delivery to be recorded as succeeded',
      RECOVERY_MS,
    );
    const [endpoint] = await sql(`SELECT status FROM webhook_endpoints WHERE org_id = $1`, [firm.orgId]);
    expect(endpoint.status).toBe('enabled');
  };

  it('PostgreSQL stopped: 503 with Retry-After, readiness 503, liveness 200, nothing lost, back by itself', async () => {
    const eventIds = await pendingDeliveries(3);
    const outage = await outageLog();
    await db.stopServer();
    const refused = nextCallId('call_out');
    await expectUnavailable([account, () => t.get('/v1/calls', { key: firm.keys.read }), () => ingest(refused)]);
    // Many more refused requests while it is away: still one warning for the outage.
    await expectUnavailable(Array.from({ length: 20 }, () => account));
    expect((await t.get('/health/ready')).status).toBe(503);
    const live = await t.get('/v1/health');
    expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { ok: true } });
    // Paused, not failed: deliveries that came due during the outage are still pending with attempts left.
    failing = false;

    await db.startServer();
    const back = Date.now();
    await expectRecovered(back);
    await outage.loggedOnce(23);
    await expectAllDelivered(eventIds);
    // The 503 wrote nothing; the pipeline's retry of the same call succeeds and its event is delivered too.
    const retried = await ingest(refused);
    expect(retried.status).toBe(201);
    const [event] = await sql(`SELECT id FROM events WHERE org_id = $1 AND type = 'call.completed' AND data->>'call_id' = $2`, [
      firm.orgId,
      refused,
    ]);
    await expectAllDelivered([event.id]);
  }, 60_000);

  it('PostgreSQL frozen (SIGSTOP): answers stay bounded, then it recovers by itself once thawed', async () => {
    const eventIds = await pendingDeliveries(3);
    // Warm connections in the pool: their statements are what would hang without a client-side timeout.
    for (let i = 0; i < 3; i++) expect((await account()).status).toBe(200);
    const outage = await outageLog();
    db.freeze();
    try {
      await expectUnavailable([account, account, account, () => t.get('/v1/calls', { key: firm.keys.read })]);
      await expectUnavailable([account, account, account, account]);
      const ready = await timed(() => t.get('/health/ready'));
      expect(ready.r.status).toBe(503);
      expect(ready.ms).toBeLessThan(ANSWER_CEILING_MS);
      // Liveness reads no database: it answers while PostgreSQL is still frozen (one that waited on it would answer
      // 503 once its statement timed out).
      const live = await t.get('/v1/health');
      expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { ok: true } });
      failing = false;
    } finally {
      await db.thaw();
    }
    const back = Date.now();
    await expectRecovered(back);
    await outage.loggedOnce(8);
    await expectAllDelivered(eventIds);
    // Nothing was given up on during the freeze: no delivery of this firm failed.
    const failed = await sql(
      `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.org_id = $1 AND d.status = 'failed'`,
      [firm.orgId],
    );
    expect(failed[0].n).toBe(0);
  }, 60_000);
});

/** test/webhooks/webhook-crash.cases.ts covers the worker role (SIGKILL mid-batch, SIGTERM drain); this is the api role. */
describe('api process signals', () => {
  let t: TestApp;
  let rx: Receiver;
  let firm: TestFirm;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    rx = await Receiver.start();
    t = await startTestApp({ databaseUrl, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    firm = await createFirm(t.app);
    await t.app.get(WebhookEndpointsService).create({ orgId: firm.orgId, url: rx.url('/hook'), eventTypes: 'call.completed' });
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });

  it('SIGTERM: stops listening, finishes the request in flight with its full answer, answers 503 problem+json to new work, exits 0', async () => {
    // Three of one key's requests held inside the service at once: over the default per-key cap.
    const svc = await startService('api', serviceEnv(t.databaseUrl, { CONCURRENT_REQUESTS_PER_KEY: '10' }));
    // Read its document now: a draining process no longer serves it, and its answers are checked against it below.
    await servedConformance(svc.baseUrl!);
    const lock = new pg.Client({ connectionString: t.databaseUrl });
    await lock.connect();
    try {
      // Hold the request inside the service: its page query waits on this lock. Its connection stays open, so a
      // request written on it after SIGTERM reaches the draining server.
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE calls IN ACCESS EXCLUSIVE MODE');
      // Three connections, each with a request held on the lock: a probe pipelined behind each reaches the
      // draining server, one per operation checked here (a probe's 503 closes its connection).
      const connections = [0, 1, 2].map(() => rawConnection(svc.baseUrl!));
      for (const c of connections) c.write(`GET /v1/calls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${firm.keys.read}\r\n\r\n`);
      await waitFor(
        async () =>
          (
            await t.sql(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%FROM calls%'`,
            )
          )[0].n >= connections.length,
        'the requests to wait on the lock',
      );
      svc.child.kill('SIGTERM');
      // Draining: no new work is taken (refused, or 503 on a kept-alive socket), the process stays up.
      await waitFor(
        () =>
          fetch(`${svc.baseUrl}/v1/health`).then(
            (r) => r.status === 503,
            () => true,
          ),
        'the service to stop taking requests',
      );
      expect(svc.child.exitCode).toBeNull();
      // New work on connections still open: pipelined behind the requests in flight, answered once those are.
      // [method, path, operation, body]: a HEAD answer carries no body; the GET's names the code and the request id.
      const probes: [string, string, string, unknown][] = [
        ['GET', '/v1/health', 'getHealth', expect.objectContaining({ code: 'service_unavailable', request_id: 'drain-probe-0' })],
        ['HEAD', '/v1/recordings/Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5', 'headRecording', ''],
        ['HEAD', '/v1/calls/call_drain_probe/recording', 'headCallRecording', ''],
      ];
      probes.forEach(([method, path], i) =>
        connections[i].write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nx-request-id: drain-probe-${i}\r\n\r\n`, method),
      );
      // Each probe must reach the draining server while the request before it is still held: then release them.
      await waitFor(() => connections.every((c) => c.readByServer()), 'the server to have read every probe');
      await lock.query('COMMIT');
      for (const [i, [method, path, operationId, body]] of probes.entries()) {
        const [answer, draining, ...more] = await connections[i].answers;
        expect(answer.status).toBe(200);
        expect((answer.body as { calls: unknown }).calls).toEqual(expect.any(Array));
        expect(await checkExchange(svc.baseUrl!, 'GET', '/v1/calls', answer)).toBe('listCalls');
        expect(await checkExchange(svc.baseUrl!, method, path, draining)).toBe(operationId);
        // Like every other unavailability: problem+json service_unavailable, Retry-After, the request id; then closed.
        expect({
          status: draining.status,
          type: draining.headers.get('content-type'),
          retryAfter: draining.headers.get('retry-after'),
          requestId: draining.headers.get('x-request-id'),
          connection: draining.headers.get('connection'),
        }).toEqual({
          status: 503,
          type: 'application/problem+json; charset=utf-8',
          retryAfter: '5',
          requestId: `drain-probe-${i}`,
          connection: 'close',
        });
        expect(draining.body).toEqual(body);
        expect(more).toEqual([]);
      }
      // Promptly: the kept-alive socket of that answer must not hold the process up for its 72 s timeout.
      await waitFor(() => svc.child.exitCode !== null || svc.child.signalCode !== null, 'the process to exit', 10_000);
      expect(await svc.exited()).toEqual({ code: 0, signal: null });
    } finally {
      await lock.end();
      if (svc.child.exitCode === null) svc.child.kill('SIGKILL');
    }
  });

  it('SIGKILL mid-ingestion loses nothing acknowledged and leaves no half-written call', async () => {
    const svc = await startService('api', serviceEnv(t.databaseUrl));
    const callIds = Array.from({ length: 40 }, () => nextCallId('call_kill'));
    const acknowledged: string[] = [];
    const put = async (callId: string) => {
      const r = await fetch(`${svc.baseUrl}/internal/v1/orgs/${firm.orgId}/calls/${callId}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(fullCallDocument()),
      }).catch(() => null);
      if (r && r.status === 201) acknowledged.push(callId);
      if (acknowledged.length === 10) svc.child.kill('SIGKILL');
    };
    // Four at a time, so some are in flight when the process dies.
    const queue = [...callIds];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let id = queue.shift(); id; id = queue.shift()) await put(id);
      }),
    );
    expect((await svc.exited()).signal).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(10);
    expect(acknowledged.length).toBeLessThan(40);

    const stored = await t.sql(
      `SELECT c.call_id, e.id AS event_id, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
         FROM calls c LEFT JOIN events e ON e.org_id = c.org_id AND e.type = 'call.completed' AND e.data->>'call_id' = c.call_id
        WHERE c.org_id = $1 AND c.call_id = ANY($2)`,
      [firm.orgId, callIds],
    );
    const storedIds = stored.map((r) => r.call_id as string);
    expect(storedIds).toEqual(expect.arrayContaining(acknowledged));
    // Whole or nothing: every stored call has its event and its delivery (one transaction).
    for (const row of stored)
      expect({ call: row.call_id, event: !!row.event_id, deliveries: row.deliveries }).toEqual({
        call: row.call_id,
        event: true,
        deliveries: 1,
      });
    // Another process (this test's app, role all) delivers every one of them.
    const eventIds = stored.map((r) => r.event_id as string);
    await waitFor(
      () => {
        const got = new Set(rx.at('/hook').map((r) => r.headers['webhook-id']));
        return eventIds.every((id) => got.has(id));
      },
      'every stored event to be delivered',
      15_000,
    );
  });
});
