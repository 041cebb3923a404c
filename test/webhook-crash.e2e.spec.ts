import { spawn, type ChildProcess } from 'node:child_process';
import { Database } from '../src/database/sql';
import { EventsService } from '../src/events';
import { WebhookEndpointsService } from '../src/webhooks';
import { createTestDatabase } from './support/database';
import { createFirm } from './support/factories';
import { Receiver, waitFor } from './support/receiver';
import { startTestApp, TEST_SECRET_KEY, type TestApp } from './support/test-app';
import { recordEvent } from './support/events';

const LEASE = '15s';

/** A real worker process: the compiled service with ROLE=worker against the test database. */
function startWorker(databaseUrl: string): ChildProcess & { output: string[] } {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      ROLE: 'worker',
      DATABASE_URL: databaseUrl,
      WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_LEASE: LEASE,
      WEBHOOK_DISPATCH_CONCURRENCY: '8',
      LOG_LEVEL: 'warn',
      BASE_URL: 'http://api.test',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { output: string[] };
  child.output = [];
  child.stdout!.on('data', (d) => child.output.push(String(d)));
  child.stderr!.on('data', (d) => child.output.push(String(d)));
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });

describe('crash safety with real worker processes', () => {
  let databaseUrl: string;
  let api: TestApp;
  let rx: Receiver;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    rx = await Receiver.start();
    // The API role only: all sending happens in the child processes.
    api = await startTestApp({ databaseUrl, env: { ROLE: 'api', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await api.close();
    await rx.close();
  });

  const dispatchers = async () =>
    (
      await api.sql(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'webhook-dispatcher' AND datname = current_database()`,
      )
    )[0].n;
  const count = async (where: string, ids: string[]) =>
    (await api.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ANY($1) AND ${where}`, [ids]))[0].n;

  it('a worker killed with SIGKILL mid-batch loses nothing: another sends what was not recorded once the lease runs out', async () => {
    const f = await createFirm(api.app, { publish: false });
    rx.on('/slow', (_req, res) => setTimeout(() => res.end('ok'), 400));
    const { endpoint } = await api.app
      .get(WebhookEndpointsService)
      .create({ orgId: f.orgId, url: rx.url('/slow'), eventTypes: 'call.completed' });
    const ids: string[] = [];
    await api.app.get(Database).transaction(async (m) => {
      for (let i = 0; i < 80; i++)
        ids.push((await recordEvent(api.app.get(EventsService), m, { orgId: f.orgId, type: 'call.completed', data: { i } })).envelope.id);
    });

    const a = startWorker(databaseUrl);
    children.push(a);
    // Bounds for a hang (the worker's start among it): seconds when quiet, minutes at load 25.
    await waitFor(async () => (await count(`status = 'succeeded'`, ids)) >= 10, 'worker A to deliver some', 180_000);
    // Mid-batch: some deliveries are in flight at the (slow) receiver, leased and not recorded.
    await waitFor(async () => (await count(`status = 'pending' AND locked_until > now()`, ids)) > 0, 'deliveries in flight');
    a.kill('SIGKILL');
    expect((await exited(a)).signal).toBe('SIGKILL');
    const leasedAtKill: string[] = (
      await api.sql(`SELECT event_id FROM webhook_deliveries WHERE event_id = ANY($1) AND status = 'pending' AND locked_until > now()`, [
        ids,
      ])
    ).map((r) => r.event_id);
    const doneAtKill = await count(`status = 'succeeded'`, ids);
    expect(leasedAtKill.length).toBeGreaterThan(0);
    expect(doneAtKill).toBeLessThan(80);

    const b = startWorker(databaseUrl);
    children.push(b);
    const started = Date.now();
    await waitFor(async () => (await count(`status = 'succeeded'`, ids)) === 80, 'every delivery to succeed', 180_000);
    // The leased ones waited for their lease (15 s); nothing was lost, nothing is left pending.
    expect(Date.now() - started).toBeGreaterThan(5_000);
    expect(await count(`status <> 'succeeded' OR attempt_count <> 1 OR locked_until IS NOT NULL`, ids)).toBe(0);
    const received = rx.at('/slow').map((r) => r.headers['webhook-id'] as string);
    expect(new Set(received)).toEqual(new Set(ids));
    // At least once: only what was in flight when A died may have arrived twice.
    const twice = [...new Set(received.filter((id, i) => received.indexOf(id) !== i))];
    expect(twice.every((id) => leasedAtKill.includes(id))).toBe(true);
    // The crash cost the endpoint nothing: still on, and its health shows the successes.
    const [health] = await api.sql('SELECT status, last_success_at, failing_since FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    expect(health).toMatchObject({ status: 'enabled', failing_since: null });
    expect(health.last_success_at).toBeInstanceOf(Date);

    // SIGTERM: stop claiming, finish what is in flight, record it, exit.
    rx.on('/slow', (_req, res) => setTimeout(() => res.end('ok'), 1500));
    const more: string[] = [];
    await api.app.get(Database).transaction(async (m) => {
      for (let i = 0; i < 30; i++)
        more.push((await recordEvent(api.app.get(EventsService), m, { orgId: f.orgId, type: 'call.completed', data: { i } })).envelope.id);
    });
    await waitFor(async () => (await count(`locked_until > now()`, more)) > 0, 'B to have deliveries in flight', 60_000);
    const inFlight = rx.received.length;
    b.kill('SIGTERM');
    const exit = await exited(b);
    expect(exit).toEqual({ code: 0, signal: null }); // a clean exit, after the drain
    const sentDuringShutdown = rx.received.length - inFlight;
    expect(await count(`locked_until IS NOT NULL`, more)).toBe(0); // finished or released, never left leased
    const succeeded = await count(`status = 'succeeded'`, more);
    expect(succeeded).toBeGreaterThan(0);
    expect(succeeded).toBeLessThan(30); // it stopped claiming
    expect(await count(`status = 'pending' AND attempt_count = 0`, more)).toBe(30 - succeeded);
    expect(sentDuringShutdown).toBeLessThanOrEqual(8);
    // Its LISTEN connection is gone once the backend notices the closed socket.
    await waitFor(async () => (await dispatchers()) === 0, 'no dispatcher left', 30_000);
  }, 600_000);
});
