import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MIGRATIONS_LOCK_KEY, runMigrations } from '../src/database/migrate';
import { WebhookEndpointsService } from '../src/webhooks';
import { fullCallDocument, nextCallId } from './support/call-documents';
import { runCli, type CliResult } from './support/cli';
import { createTestDatabase } from './support/database';
import { createFirm, type TestFirm } from './support/factories';
import { freePort } from './support/net';
import { recordingStoreEnv, serviceEnv, SpreadClient, startService, stopService, type ServiceProcess } from './support/processes';
import { Receiver, waitFor, type Received } from './support/receiver';
import { fixture } from './support/recordings';
import { startTestApp, TEST_INTERNAL_TOKEN, type TestApp } from './support/test-app';

const LEASE_MS = 15_000;
const CONCURRENCY = 4;

/** Every request a receiver got at a path, by webhook-id. */
const idsAt = (rx: Receiver, path: string) => rx.at(path).map((r) => r.headers['webhook-id'] as string);
const duplicates = (ids: string[]) => [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
const SUCCESSES = 'webhook_delivery_attempts_total{outcome="success"} ';

describe('two api and two worker processes behave as one service', () => {
  let databaseUrl: string;
  let dataDir: string;
  let recordingStore: Awaited<ReturnType<typeof recordingStoreEnv>>;
  /** In-process: creates firms and endpoints (dashboard actions have no API), and is the second api. */
  let fixtures: TestApp;
  let rx: Receiver;
  let api: ServiceProcess;
  const workers: ServiceProcess[] = [];
  let client: SpreadClient;
  let env: Record<string, string>;
  /** Each worker's own GET /metrics (METRICS_PORT): what it sent is counted in the process that sent it. */
  const metricsUrl = new Map<ServiceProcess, string>();
  const startWorker = async () => {
    const port = await freePort();
    const worker = await startService('worker', { ...env, METRICS_PORT: String(port) });
    metricsUrl.set(worker, `http://127.0.0.1:${port}/metrics`);
    return worker;
  };
  /** Successful delivery attempts a worker has counted since it started. */
  const successes = async (worker: ServiceProcess) => {
    const text = await (await fetch(metricsUrl.get(worker)!)).text();
    const line = text.split('\n').find((l) => l.startsWith(SUCCESSES));
    if (line === undefined) throw new Error(`no ${SUCCESSES}series in the worker's metrics`);
    return Number(line.slice(SUCCESSES.length));
  };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'multi-process-'));
    recordingStore = await recordingStoreEnv();
    rx = await Receiver.start();
    // The second api is this process's app: like a compiled one it shares only the database and the S3 server (and
    // DATA_DIR, checked to stay empty) with the first, so a second compiled api would add only its start (~2 s of CPU).
    fixtures = await startTestApp({
      databaseUrl,
      env: {
        ROLE: 'api',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN,
        DATA_DIR: dataDir,
        ...recordingStore.env,
      },
    });
    env = serviceEnv(databaseUrl, {
      DATA_DIR: dataDir,
      ...recordingStore.env,
      WEBHOOK_LEASE: `${LEASE_MS / 1000}s`,
      WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s',
      WEBHOOK_DISPATCH_CONCURRENCY: String(CONCURRENCY),
    });
    const started = await Promise.all([startService('api', env), startWorker(), startWorker()]);
    api = started[0];
    workers.push(started[1], started[2]);
    client = new SpreadClient([api, fixtures]);
    // Four processes (s3rver and three service processes) start at once: a bound for a hang, minutes at load 25.
  }, 240_000);

  afterAll(async () => {
    await Promise.all([api, ...workers].filter(Boolean).map((p) => stopService(p)));
    await fixtures?.close();
    await rx?.close();
    await recordingStore?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const ingest = async (via: number, f: TestFirm, callId: string, doc: unknown) => {
    const r = await client.via(via, 'PUT', `/internal/v1/orgs/${f.orgId}/calls/${encodeURIComponent(callId)}`, {
      body: doc,
      headers: { authorization: `Bearer ${TEST_INTERNAL_TOKEN}` },
    });
    expect([200, 201]).toContain(r.status);
    return r.body as { lead_id: string | null };
  };
  const endpoint = async (f: TestFirm, path: string, types = 'call.completed,lead.created,lead.updated') =>
    (await fixtures.app.get(WebhookEndpointsService).create({ orgId: f.orgId, url: rx.url(path), eventTypes: types })).endpoint;
  const deliveries = async (where: string, params: unknown[]) =>
    (await fixtures.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${where}`, params))[0].n as number;

  it('calls ingested through one api are listed, paged with cursors and patched through the other', async () => {
    const f = await createFirm(fixtures.app);
    const ids: string[] = [];
    const leads: string[] = [];
    for (let i = 0; i < 23; i++) {
      const id = nextCallId('call_mp');
      const started = new Date(Date.UTC(2026, 2, 2, 9, i)).toISOString();
      leads.push((await ingest(0, f, id, fullCallDocument({ started_at: started }))).lead_id!);
      ids.push(id);
    }
    // Paged through api 1, each page from a cursor api 0 never saw... then alternating.
    const seen: string[] = [];
    let cursor: string | undefined;
    let page = 0;
    do {
      const r = await client.via(1 - (page++ % 2), 'GET', '/v1/calls', { key: f.keys.read, query: { limit: 5, cursor } });
      expect(r.status).toBe(200);
      seen.push(...r.body.calls.map((c: { call_id: string }) => c.call_id));
      cursor = r.body.next_cursor ?? undefined;
      expect(r.body.has_more).toBe(cursor !== undefined);
    } while (cursor);
    expect(page).toBe(5);
    expect(seen).toEqual([...ids].reverse()); // newest first, each exactly once

    const patched = await client.via(1, 'PATCH', `/v1/leads/${leads[0]}`, {
      key: f.keys['read-update-leads'],
      body: { status: 'contacted', expected_status: 'new' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.changed).toBe(true);
    const read = await client.via(0, 'GET', `/v1/leads/${leads[0]}`, { key: f.keys.read });
    expect(read.body.lead.status).toBe('contacted');
    // A stale expectation through the other process is refused, never overwritten.
    const stale = await client.via(0, 'PATCH', `/v1/leads/${leads[0]}`, {
      key: f.keys['read-update-leads'],
      body: { status: 'signed', expected_status: 'new' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('status_conflict');
  }, 60_000);

  it('a recording uploaded through one api streams from the other, whole, by range and by link', async () => {
    const f = await createFirm(fixtures.app);
    const callId = nextCallId('call_mp');
    await ingest(1, f, callId, fullCallDocument());
    const audio = fixture('injury-caller.ogg');
    const up = await client.via(1, 'PUT', `/internal/v1/orgs/${f.orgId}/calls/${callId}/recording`, {
      key: TEST_INTERNAL_TOKEN,
      rawBody: audio,
      headers: { 'content-type': 'audio/ogg' },
    });
    expect([200, 201]).toContain(up.status);
    const path = `/v1/calls/${callId}/recording`;
    const whole = await client.bytesVia(0, path, { authorization: `Bearer ${f.keys.read}` });
    expect(whole.status).toBe(200);
    expect(whole.bytes.equals(audio)).toBe(true);
    const part = await client.bytesVia(0, path, { authorization: `Bearer ${f.keys.read}`, range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.bytes.equals(audio.subarray(100, 200))).toBe(true);
    const link = await client.via(0, 'POST', `/v1/calls/${callId}/recording-link`, { key: f.keys.read });
    expect(link.status).toBeLessThan(300);
    const token = String(link.body.url).split('/').pop()!;
    const played = await client.bytesVia(1, `/v1/recordings/${token}`);
    expect(played.status).toBe(200);
    expect(played.bytes.equals(audio)).toBe(true);
    // The processes share the S3 server, not a folder: nothing was written under DATA_DIR.
    expect(existsSync(join(dataDir, 'recordings'))).toBe(false);
  }, 60_000);

  it('every event of a few hundred changes reaches each endpoint exactly once while both workers run', async () => {
    const f = await createFirm(fixtures.app);
    await endpoint(f, '/all-a');
    await endpoint(f, '/all-b');
    const before = await Promise.all(workers.map(successes));
    const leads: string[] = [];
    // 240 events, 480 deliveries: both workers wake on each batch's notifications and race for at least 120 claims of
    // at most CONCURRENCY, so a claim that two workers could both win shows as a duplicate; more calls add only time.
    const CALLS = 80;
    for (let i = 0; i < CALLS; i += 8) {
      const batch = Array.from({ length: Math.min(8, CALLS - i) }, (_, j) =>
        ingest((i + j) % 2, f, nextCallId('call_mp'), fullCallDocument()),
      );
      for (const r of await Promise.all(batch)) leads.push(r.lead_id!);
    }
    for (let i = 0; i < leads.length; i += 8) {
      const batch = leads
        .slice(i, i + 8)
        .map((id) => client.request('PATCH', `/v1/leads/${id}`, { key: f.keys['read-update-leads'], body: { status: 'contacted' } }));
      for (const r of await Promise.all(batch)) expect(r.status).toBe(200);
    }
    const events: string[] = (await fixtures.sql('SELECT id FROM events WHERE org_id = $1', [f.orgId])).map((r) => r.id);
    expect(events.length).toBe(CALLS * 3); // call.completed, lead.created, lead.updated
    await waitFor(
      async () =>
        (await deliveries(`endpoint_id IN (SELECT id FROM webhook_endpoints WHERE org_id = $1) AND status = 'succeeded'`, [f.orgId])) ===
        CALLS * 6,
      'every delivery to succeed',
      60_000,
    );
    for (const path of ['/all-a', '/all-b']) {
      const got = idsAt(rx, path);
      expect(duplicates(got)).toEqual([]);
      expect(new Set(got)).toEqual(new Set(events));
    }
    expect(workers.every((w) => w.child.exitCode === null)).toBe(true); // both ran throughout
    // ...and both sent: each worker counted a share of the successful attempts, which add up to at least
    // this test's deliveries (a delivery of another test still in flight can only add to them).
    const sent = (await Promise.all(workers.map(successes))).map((n, i) => n - before[i]);
    expect({ sent, each: sent.every((n) => n > 0) }).toEqual({ sent, each: true });
    expect(sent[0] + sent[1]).toBeGreaterThanOrEqual(CALLS * 6);
  }, 120_000);

  it('the limit of 5 test events and resends per minute holds across both api processes', async () => {
    const f = await createFirm(fixtures.app);
    const ep = await endpoint(f, '/limited');
    const servedBefore = [...client.served];
    const answers: number[] = [];
    let first: string | undefined;
    for (let i = 0; i < 4; i++) {
      const r = await client.request('POST', `/v1/webhook-endpoints/${ep.id}/test`, { key: f.keys.read });
      answers.push(r.status);
      first ??= r.body.delivery?.id;
    }
    const redeliver = await client.request('POST', `/v1/webhook-deliveries/${first}/redeliver`, { key: f.keys.read });
    answers.push(redeliver.status);
    expect(answers).toEqual([202, 202, 202, 202, 202]);
    // These five, not earlier tests' requests, went to both processes: the count is shared, not per process.
    expect(client.served.map((n, i) => n - servedBefore[i] > 0)).toEqual([true, true]);
    for (const i of [0, 1]) {
      const refused = await client.via(i, 'POST', `/v1/webhook-endpoints/${ep.id}/test`, { key: f.keys.read });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(await deliveries(`endpoint_id = $1`, [ep.id])).toBe(5);
  }, 30_000);

  it('an Idempotency-Key is one across both api processes: a retry on the other replays, a duplicate there waits (409)', async () => {
    const f = await createFirm(fixtures.app);
    const ep = await endpoint(f, '/idempotent');
    const test = (via: number, key: string) =>
      client.via(via, 'POST', `/v1/webhook-endpoints/${ep.id}/test`, { key: f.keys.read, headers: { 'Idempotency-Key': key } });
    const key = `mp-${randomUUID()}`;
    const first = await test(0, key);
    expect([first.status, first.headers.get('idempotent-replayed')]).toEqual([202, null]);
    const retried = await test(1, key);
    expect([retried.status, retried.headers.get('idempotent-replayed'), retried.text]).toEqual([202, 'true', first.text]);
    expect((await test(0, key)).text).toBe(first.text);
    expect(await deliveries(`endpoint_id = $1`, [ep.id])).toBe(1);
    // Another key while the first request runs in the compiled process (held on the endpoint's row): 409 from this one.
    const blocker = new pg.Client({ connectionString: databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [ep.id]);
      const other = `mp-${randomUUID()}`;
      const running = test(0, other);
      await waitFor(
        async () =>
          (await fixtures.sql(`SELECT 1 FROM idempotency_keys WHERE idempotency_key = $1 AND claim_token IS NOT NULL`, [other])).length,
        'the compiled api to hold the key',
      );
      const duplicate = await test(1, other);
      expect([duplicate.status, duplicate.body.code, duplicate.headers.get('retry-after')]).toEqual([409, 'idempotency_key_in_use', '1']);
      await blocker.query('COMMIT');
      const done = await running;
      expect(done.status).toBe(202);
      expect((await test(1, other)).text).toBe(done.text);
    } finally {
      await blocker.end();
    }
    expect(await deliveries(`endpoint_id = $1`, [ep.id])).toBe(2);
  }, 30_000);

  // Last of this describe, so no test after it needs the worker it kills (a new one would cost a process start).
  it('a worker killed with SIGKILL mid-batch loses nothing: the other sends its deliveries once the lease runs out', async () => {
    const f = await createFirm(fixtures.app);
    // Every request is held open until released, so both workers fill up with sends in flight.
    const held: { res: ServerResponse; id: string }[] = [];
    const aborted = new Set<string>();
    let open = false;
    rx.on('/held', (req, res) => {
      const id = req.headers['webhook-id'] as string;
      if (open) return void res.end('ok');
      held.push({ res, id });
      res.on('close', () => {
        if (!res.writableFinished) aborted.add(id);
      });
    });
    const ep = await endpoint(f, '/held', 'call.completed');
    // Both workers are paused while the 30 events are made, then claim side by side. Claiming as the calls came in one
    // by one, at load 10 to 15 the first worker's held sends reached the 10 s send deadline before the second worker's
    // batch was full: they were sent again, and no moment had exactly both batches in flight.
    for (const w of workers) w.child.kill('SIGSTOP');
    try {
      for (let i = 0; i < 30; i++) await ingest(i % 2, f, nextCallId('call_mp'), fullCallDocument({ lead: null }));
    } finally {
      for (const w of workers) w.child.kill('SIGCONT');
    }
    const events: string[] = (await fixtures.sql('SELECT id FROM events WHERE org_id = $1', [f.orgId])).map((r) => r.id);
    expect(events.length).toBe(30);

    // A bound for a hang: at load 15 to 20 (three suites at once) the two workers took over 30 s to fill their batches.
    // Past a full pair of batches, a send was cut by its deadline and sent again: fail now, saying so.
    await waitFor(
      () => {
        if (held.length > 2 * CONCURRENCY) throw new Error(`${held.length} sends held: one was cut by its deadline and sent again`);
        return held.length === 2 * CONCURRENCY;
      },
      'both workers to have a full batch in flight',
      90_000,
    );
    const [victim, survivor] = workers;
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    expect((await victim.exited()).signal).toBe('SIGKILL');
    // The victim's sockets close with it: those are the sends it never recorded.
    await waitFor(() => aborted.size === CONCURRENCY, 'the killed worker’s connections to close', 10_000);
    const lost = [...aborted];
    // When the dead worker's leases end: read now, while the survivor's slots are all held, so none is claimed again yet.
    const leases = await fixtures.sql('SELECT event_id, locked_until FROM webhook_pending_deliveries WHERE event_id = ANY($1)', [lost]);
    const leaseEnds = new Map(leases.map((r) => [r.event_id as string, (r.locked_until as Date).getTime()]));
    // Claimed before the kill, so each lease still had most of its LEASE_MS to run when the worker died.
    expect(lost.filter((id) => !(leaseEnds.get(id)! > killedAt))).toEqual([]);
    open = true;
    for (const h of held) if (!aborted.has(h.id)) h.res.end('ok');

    await waitFor(
      async () => (await deliveries(`event_id = ANY($1) AND status = 'succeeded'`, [events])) === 30,
      'every delivery to succeed',
      60_000,
    );
    expect(survivor.child.exitCode).toBeNull();
    const received: Received[] = rx.at('/held');
    const got = received.map((r) => r.headers['webhook-id'] as string);
    expect(new Set(got)).toEqual(new Set(events));
    // At least once, bounded: only what the dead worker had in flight arrived twice...
    expect(duplicates(got).sort()).toEqual([...lost].sort());
    // ...and its second copy waited for the lease: not sent before the lease the dead worker took ran out (measured
    // from the lease, not the kill: at load 18 the kill came 5.5 s after the claim, and a bound from it failed).
    for (const id of lost) {
      const resent = received.filter((r) => r.headers['webhook-id'] === id)[1];
      expect({ id, early_ms: Math.max(0, leaseEnds.get(id)! - resent.at) }).toEqual({ id, early_ms: 0 });
    }
    expect(
      await deliveries(`event_id = ANY($1) AND (attempt_count <> 1 OR id IN (SELECT id FROM webhook_pending_deliveries))`, [events]),
    ).toBe(0);
    // The crash cost the endpoint nothing: still on, and its health shows the successes.
    const [health] = await fixtures.sql('SELECT status, last_success_at, failing_since FROM webhook_endpoints WHERE id = $1', [ep.id]);
    expect(health).toMatchObject({ status: 'enabled', failing_since: null });
    expect(health.last_success_at).toBeInstanceOf(Date);
  }, 240_000);
});

/** A fresh empty database on the test server (not cloned from the migrated template). */
async function emptyDatabase(): Promise<string> {
  const admin = new URL(process.env.TEST_PG_ADMIN_URL!);
  const name = `mp_${process.pid}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  admin.pathname = `/${name}`;
  return admin.toString();
}

/** Sessions of this database queued, not granted, on the migrations advisory lock (a bigint key: classid 0, objsubid 1). */
const lockWaiters = async (db: pg.Client) =>
  (
    await db.query(
      `SELECT count(*)::int AS n FROM pg_locks
        WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid = 0 AND objid = $1 AND objsubid = 1 AND NOT granted`,
      [MIGRATIONS_LOCK_KEY],
    )
  ).rows[0].n as number;

describe('migrations started by two processes at once', () => {
  it('run once: both wait on one lock, then both succeed and each migration is recorded exactly once', async () => {
    const url = await emptyDatabase();
    // The test holds the migrations lock itself, so both runners are certain to start while the
    // other is also unable to migrate: without the lock they would both migrate now, unordered.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    let runs: [Promise<CliResult>, Promise<string[]>] | undefined;
    try {
      await db.query('SELECT pg_advisory_lock($1)', [MIGRATIONS_LOCK_KEY]);
      const finished: boolean[] = [false, false];
      // `migrate --json` in a process of its own, beside the same runner (what every process runs at start) in this
      // one: the lock is per PostgreSQL session, and each has its own, so the second process would add only its start.
      runs = [
        runCli(['migrate', '--json'], { databaseUrl: url }).finally(() => (finished[0] = true)),
        runMigrations(url).finally(() => (finished[1] = true)),
      ];
      await waitFor(
        async () => {
          if (finished.some(Boolean)) throw new Error('a migration run ended while the test held the migrations lock');
          return (await lockWaiters(db)) === 2;
        },
        'both migration runs to queue on the migrations lock',
        60_000,
      );
      expect((await db.query(`SELECT to_regclass('migrations') AS t`)).rows[0].t).toBeNull(); // nothing migrated yet
      await db.query('SELECT pg_advisory_unlock($1)', [MIGRATIONS_LOCK_KEY]);

      const [cli, inProcess] = await Promise.all(runs);
      expect(cli.code).toBe(0);
      const ran: string[] = [...cli.json.migrations_ran, ...inProcess];
      const rows = (await db.query('SELECT name, count(*)::int AS n FROM migrations GROUP BY name')).rows as { name: string; n: number }[];
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((r) => r.n !== 1)).toEqual([]);
      expect(ran.sort()).toEqual(rows.map((r) => r.name).sort()); // between them they ran each one, once
    } finally {
      await db.end(); // releases the lock if an assertion failed while it was held
      if (runs) await Promise.allSettled(runs);
    }
  }, 90_000);
});
