import pg from 'pg';
import { Database } from '../../src/database/sql';
import { createFirm } from '../support/factories';
import { createTestDatabase } from '../support/database';
import { TcpProxy } from '../support/tcp-proxy';
import { startTestApp } from '../support/test-app';
import { waitFor } from '../support/receiver';

// Each case cuts its own database's proxy, so each starts its own app on it.
describe('database outage', () => {
  it('a connection dropped mid-statement fails that statement and nothing else (no uncaught pg error)', async () => {
    const direct = new URL(await createTestDatabase());
    const proxy = new TcpProxy(direct.hostname, Number(direct.port));
    const viaProxy = new URL(direct.toString());
    viaProxy.port = String(await proxy.start());
    const t = await startTestApp({ databaseUrl: viaProxy.toString() });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    // A statement that stays on the wire until the cut: it waits for an advisory lock this test holds.
    const holder = new pg.Client({ connectionString: direct.toString() });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock(4242)');
    try {
      const outcome = t.app
        .get(Database)
        .query('SELECT pg_advisory_lock(4242)')
        .then(
          () => 'finished',
          (err: Error) => err.message,
        );
      await waitFor(
        async () =>
          (await admin(
            direct,
            "SELECT 1 FROM pg_stat_activity WHERE query = 'SELECT pg_advisory_lock(4242)' AND wait_event_type = 'Lock'",
          )) > 0,
        'the statement to wait on the lock',
        5_000,
      );
      await proxy.cut();
      expect(await outcome).toMatch(/terminated|ECONNRESET|closed/i);
      await new Promise((r) => setImmediate(r));
      expect(uncaught).toEqual([]);
      await proxy.restore();
      expect(await waitFor(async () => (await t.get('/health/ready')).status === 200, 'readiness again', 10_000)).toBe(true);
    } finally {
      process.off('uncaughtException', onUncaught);
      await holder.end();
      await proxy.cut().catch(() => undefined);
      await t.close();
    }
  });

  it('answers 503 with Retry-After while PostgreSQL is unreachable, then recovers by itself', async () => {
    const direct = new URL(await createTestDatabase());
    const proxy = new TcpProxy(direct.hostname, Number(direct.port));
    const port = await proxy.start();
    const viaProxy = new URL(direct.toString());
    viaProxy.port = String(port);
    const t = await startTestApp({ databaseUrl: viaProxy.toString() });
    try {
      const firm = await createFirm(t.app);
      expect((await t.get('/v1/account', { key: firm.keys.read })).status).toBe(200);
      await proxy.cut();
      const down = await t.get('/v1/account', { key: firm.keys.read });
      expect(down.status).toBe(503);
      expect(down.body.code).toBe('service_unavailable');
      expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await t.get('/health/ready')).status).toBe(503);
      expect((await t.get('/v1/health')).status).toBe(200);
      await proxy.restore();
      // The pool reconnects by itself: the service answers again without a restart.
      const up = await waitFor(
        async () => (await t.get('/v1/account', { key: firm.keys.read })).status === 200,
        'the service to answer again',
        10_000,
      );
      expect(up).toBe(true);
    } finally {
      await proxy.cut().catch(() => undefined);
      await t.close();
    }
  });
});

async function admin(url: URL, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return (await client.query(sql)).rowCount ?? 0;
  } finally {
    await client.end();
  }
}
