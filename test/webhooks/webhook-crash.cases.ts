import { spawn, type ChildProcess } from 'node:child_process';
import { Database } from '../../src/database/sql';
import { EventsService } from '../../src/events';
import { WebhookEndpointsService } from '../../src/webhooks';
import { createTestDatabase } from '../support/database';
import { createFirm } from '../support/factories';
import { Receiver, waitFor } from '../support/receiver';
import { startTestApp, TEST_SECRET_KEY, type TestApp } from '../support/test-app';
import { recordEvent } from '../support/events';

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

  // A worker SIGKILLed mid-batch (the lease, the re-send, the endpoint's health) is proven in
  // test/multi-process.e2e.spec.ts with one worker killed beside another; here one worker's clean stop.
  it('a worker sent SIGTERM stops claiming, finishes and records what it has in flight, and exits 0', async () => {
    const f = await createFirm(api.app, { publish: false });
    await api.app.get(WebhookEndpointsService).create({ orgId: f.orgId, url: rx.url('/slow'), eventTypes: 'call.completed' });
    // Slow answers, so what the worker claimed is still in flight when SIGTERM comes.
    rx.on('/slow', (_req, res) => setTimeout(() => res.end('ok'), 1500));
    const more: string[] = [];
    await api.app.get(Database).transaction(async (m) => {
      for (let i = 0; i < 30; i++)
        more.push((await recordEvent(api.app.get(EventsService), m, { orgId: f.orgId, type: 'call.completed', data: { i } })).envelope.id);
    });
    const worker = startWorker(databaseUrl);
    children.push(worker);
    // A bound for a hang (the worker's start among it): seconds when quiet, minutes at load 25.
    await waitFor(
      async () => (await count(`id IN (SELECT id FROM webhook_pending_deliveries WHERE locked_until > now())`, more)) > 0,
      'the worker to have deliveries in flight',
      180_000,
    );
    const inFlight = rx.received.length;
    worker.kill('SIGTERM');
    const exit = await exited(worker);
    expect(exit).toEqual({ code: 0, signal: null }); // a clean exit, after the drain
    const sentDuringShutdown = rx.received.length - inFlight;
    expect(await count(`id IN (SELECT id FROM webhook_pending_deliveries WHERE locked_until IS NOT NULL)`, more)).toBe(0); // finished or released, never left leased
    const succeeded = await count(`status = 'succeeded'`, more);
    expect(succeeded).toBeGreaterThan(0);
    expect(succeeded).toBeLessThan(30); // it stopped claiming
    expect(await count(`status = 'pending' AND attempt_count = 0`, more)).toBe(30 - succeeded);
    expect(sentDuringShutdown).toBeLessThanOrEqual(8);
    // Its LISTEN connection is gone once the backend notices the closed socket.
    await waitFor(async () => (await dispatchers()) === 0, 'no dispatcher left', 30_000);
  }, 600_000);
});
