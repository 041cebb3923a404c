import { readFileSync } from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import { EVENTS_CHANNEL } from '../src/events';
import { insertEvent } from './support/events';
import { createFirm } from './support/factories';
import { serviceEnv, startService, stopService, type ServiceProcess } from './support/processes';
import { waitFor } from './support/receiver';
import { startTestApp } from './support/test-app';
import { hold } from './support/time';

const WAITERS = 1000;
const QUIET_MS = 3000;
const MiB = 1024 * 1024;

/** Resident memory of a process, from /proc. */
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/** One GET on a connection of its own, resolving with the status and parsed body. */
function get(url: string, key: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
  });
}

/**
 * 1,000 requests waiting in one `api` process: their memory, and the database
 * work they cause while nothing happens (transactions committed in the test
 * database, and backends busy, over a quiet interval), against the same
 * interval with none waiting. Then one event answers them all.
 */
describe('GET /v1/events?wait= under load', () => {
  let api: ServiceProcess;
  let sql: pg.Client;
  let orgId: string;
  let key: string;

  beforeAll(async () => {
    const seed = await startTestApp();
    const firm = await createFirm(seed.app, { publish: false });
    [orgId, key] = [firm.orgId, firm.keys.read];
    const databaseUrl = seed.databaseUrl;
    await seed.close();
    api = await startService('api', serviceEnv(databaseUrl, { RATE_LIMIT_PER_SECOND: '100000' }));
    sql = new pg.Client({ connectionString: databaseUrl });
    await sql.connect();
  }, 90_000);
  afterAll(async () => {
    await sql?.end();
    if (api) await stopService(api, 'SIGTERM');
  });

  /**
   * Statements the service's backends started in the test database since `since` (pg_stat_activity.query_start, set
   * live as each statement starts, unlike the cumulative statistics, which idle backends report seconds late): the
   * number of its backends that ran any, so 0 means none ran at all.
   */
  const backendsActiveSince = async (since: Date) =>
    Number(
      (
        await sql.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND query_start > $1`,
          [since],
        )
      ).rows[0].n,
    );
  const dbNow = async (): Promise<Date> => (await sql.query(`SELECT clock_timestamp() AS t`)).rows[0].t;
  /** Backends of the service over a quiet interval: how many ran a statement, how many are connected, how many are not idle now. */
  async function quiet(): Promise<{ ran: number; connected: number; busy: number }> {
    const since = await dbNow();
    await hold(QUIET_MS);
    const { rows } = await sql.query(
      `SELECT count(*)::int AS connected, (count(*) FILTER (WHERE state <> 'idle'))::int AS busy
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    return { ran: await backendsActiveSince(since), ...rows[0] };
  }

  it(`${WAITERS} waiting requests cost under 50 MiB and no database work while idle`, async () => {
    const url = `${api.baseUrl}/v1/events?wait=30`;
    // Warm the process up (JIT, pools, the key cache) with answered requests, then take its resting size.
    for (let i = 0; i < 50; i++) expect((await get(`${api.baseUrl}/v1/events`, key)).status).toBe(200);
    const rssCold = rssOf(api.child.pid!);
    // Then one burst of as many concurrent connections answered at once: what a burst costs anyway (heap grown to hold
    // it) is in the baseline, so the figure is what waiting itself holds.
    const burst = await Promise.all(Array.from({ length: WAITERS }, () => get(`${api.baseUrl}/v1/events`, key)));
    expect(burst.every((b) => b.status === 200)).toBe(true);
    const baseline = await quiet();
    const rssBefore = rssOf(api.child.pid!);

    const fired = await dbNow();
    const answers = Array.from({ length: WAITERS }, () => get(url, key));
    // Every request has done its one page query once the service has started statements and then none for a second.
    await waitFor(async () => (await backendsActiveSince(fired)) > 0, 'the waiting requests to reach the database', 60_000);
    await waitFor(
      async () => (await backendsActiveSince(new Date((await dbNow()).getTime() - 1000))) === 0,
      'the waiting requests to settle',
      60_000,
    );
    const idle = await quiet();
    const rssWaiting = rssOf(api.child.pid!);
    const perWaiterKiB = (rssWaiting - rssBefore) / WAITERS / 1024;
    process.stderr.write(
      `events wait load: ${WAITERS} waiting; RSS ${(rssCold / MiB).toFixed(1)} MiB after 50 requests, ` +
        `${(rssBefore / MiB).toFixed(1)} after a burst of ${WAITERS} answered at once, ${(rssWaiting / MiB).toFixed(1)} MiB while they wait ` +
        `(+${((rssWaiting - rssBefore) / MiB).toFixed(1)} MiB, ${perWaiterKiB.toFixed(1)} KiB each); over ${QUIET_MS} ms quiet, ` +
        `service backends that ran a statement: ${baseline.ran} of ${baseline.connected} without waiters, ${idle.ran} of ${idle.connected} with (${idle.busy} not idle)\n`,
    );
    expect(rssWaiting - rssBefore).toBeLessThan(50 * MiB);
    expect(idle.ran).toBe(0);
    // The pool's connections (grown by the burst, idle now) and the one LISTEN connection: none is held by a waiting request.
    expect(idle.busy).toBe(0);

    // One committed event answers every one of them.
    const started = Date.now();
    await sql.query('BEGIN');
    const id = await insertEvent(sql, orgId, { type: 'lead.created' });
    await sql.query(`SELECT pg_notify($1, $2)`, [EVENTS_CHANNEL, `${orgId}:lead.created`]);
    await sql.query('COMMIT');
    const all = await Promise.all(answers);
    process.stderr.write(`events wait load: one event answered all ${WAITERS} in ${Date.now() - started} ms\n`);
    for (const a of all) expect(a.body.events.map((e: { id: string }) => e.id)).toEqual([id]);
  }, 180_000);
});
