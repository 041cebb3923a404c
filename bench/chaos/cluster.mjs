import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../free-port.mjs';
import { s3rverEnv } from '../service-process.mjs';
import { DISPATCH_CONCURRENCY, LEASE_S, RETRY_SCHEDULE, STATEMENT_TIMEOUT_S } from './settings.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
export const SECRET_KEY = Buffer.alloc(32, 29).toString('base64');
export const INTERNAL_TOKEN = 'chaos-internal-token-0123456789abcdef';

/** VmRSS of a live process in MiB, or null when it is gone. */
export function rssMiB(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return null;
  }
}

/** One PostgreSQL of the run's own, on a fixed port, that the run stops and starts (a clean shutdown ends every session). */
export class ChaosPostgres {
  static async start() {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-pg-'));
    // The embedded server runs as the unprivileged postgres user when started by root.
    chmodSync(dir, 0o777);
    const db = new ChaosPostgres(dir, await freePort());
    await db.startServer();
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    // A throw-away cluster on a shared machine: durability buys nothing, and fsync would only slow everyone.
    for (const setting of ['fsync', 'synchronous_commit', 'full_page_writes']) await admin.query(`ALTER SYSTEM SET ${setting} = off`);
    await admin.query('SELECT pg_reload_conf()');
    await admin.end();
    const { runMigrations } = await import(new URL('../../dist/src/database/migrate.js', import.meta.url).href);
    await runMigrations(db.url);
    return db;
  }

  constructor(dataDir, port) {
    this.dataDir = dataDir;
    this.port = port;
    this.server = null;
    this.url = '';
  }

  async startServer() {
    const { startEmbeddedPostgres } = await import(new URL('../../dist/src/database/embedded-postgres.js', import.meta.url).href);
    this.server = await startEmbeddedPostgres({ dataDir: this.dataDir, port: this.port, database: 'chaos' });
    this.url = this.server.url;
  }

  async stopServer() {
    await this.server?.stop();
    this.server = null;
  }

  /** After the last stop: the cluster's files go (tens of MB a run). */
  remove() {
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  get running() {
    return this.server !== null;
  }
}

/** The S3 server every api process shares (RECORDING_STORE=s3). */
export async function startS3() {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-s3-'));
  const child = spawn(process.execPath, [join(root, 'bench/chaos/s3-server.mjs'), dir, 'recordings'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await once(createInterface({ input: child.stdout }), 'line');
  const { port } = JSON.parse(line);
  return {
    pid: child.pid,
    env: s3rverEnv(port),
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** NODE_OPTIONS of every service process (CHAOS_NODE_OPTIONS; default a 128 MiB old space). */
const NODE_OPTIONS = process.env.CHAOS_NODE_OPTIONS ?? '--max-old-space-size=128';

/** The environment every service process and CLI run of the chaos run shares. */
export function serviceEnv(databaseUrl, s3Env, dataDir) {
  mkdirSync(dataDir, { recursive: true });
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATABASE_URL: databaseUrl,
    WEBHOOK_SECRET_KEY: SECRET_KEY,
    INTERNAL_API_TOKEN: INTERNAL_TOKEN,
    // The receivers are on loopback.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_LEASE: `${LEASE_S}s`,
    WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
    WEBHOOK_DISPATCH_CONCURRENCY: String(DISPATCH_CONCURRENCY),
    DATABASE_STATEMENT_TIMEOUT: `${STATEMENT_TIMEOUT_S}s`,
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    // V8's heap bounded as a container bounds it: unbounded on a large machine, V8 grows its heap lazily under
    // sustained load (an api went from 160 to 322 MiB in 10 minutes), which says nothing about a leak; bounded, a
    // leak exhausts the heap and the kept process dies, which the checker reports. CHAOS_NODE_OPTIONS='' unbounds it.
    ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}),
    ...s3Env,
  };
}

const running = (child) => child.exitCode === null && child.signalCode === null;

/**
 * Starts `node dist/src/main.js` with a role and waits for its banner (it listens, or its dispatcher runs).
 * While PostgreSQL is down a process cannot start (migrations need it): it exits, and this tries again,
 * until `deadline` (epoch ms). Resolves to {role, pid, child, baseUrl, startedAt} or throws at the deadline.
 */
let started = 0;
export const LOG_DIR = mkdtempSync(join(tmpdir(), 'chaos-logs-'));

export async function startService(role, env, deadline) {
  for (let attempt = 1; ; attempt++) {
    const port = role === 'api' ? await freePort() : 0;
    // Its JSON log lines (stdout: warnings and errors, with their error_id) are kept for a failure's diagnosis.
    const logNumber = ++started;
    const out = openSync(join(LOG_DIR, `${role}-${logNumber}.log`), 'a');
    const child = spawn(process.execPath, [join(root, 'dist/src/main.js')], {
      env: { ...env, ROLE: role, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', out, 'pipe'],
    });
    closeSync(out);
    let err = '';
    child.stderr.on('data', (d) => (err = (err + d).slice(-20_000)));
    const banner = `Receptionist API (${role})`;
    while (running(child) && !err.includes(banner) && Date.now() < deadline) await pause(100);
    if (running(child) && err.includes(banner)) {
      const service = {
        role,
        pid: child.pid,
        child,
        baseUrl: role === 'api' ? `http://127.0.0.1:${port}` : null,
        startedAt: Date.now(),
        stderr: () => err,
        /** Set when it exits: {at, code, signal}; the fleet marks the exits it caused (killedAt, stopping). */
        exit: undefined,
      };
      // Its stderr (a crash's stack, V8's out-of-memory report) is kept beside its log: an exit nobody caused is a failure.
      child.once('exit', (code, signal) => {
        service.exit = { at: Date.now(), code, signal };
        writeFileSync(join(LOG_DIR, `${role}-${logNumber}.stderr`), err);
      });
      return service;
    }
    if (running(child)) child.kill('SIGKILL');
    if (Date.now() >= deadline)
      throw new Error(`the ${role} process did not start (${attempt} attempts); last output:\n${err.slice(-2000)}`);
    await pause(1000);
  }
}
