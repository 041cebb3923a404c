import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './net';
import { waitFor } from './receiver';
import { requestAt, type HttpResult, type RequestOptions } from './http';
import { startS3Server } from './recording-stores';
import { checkResponse } from './conformance';
import { keepChildLog } from './run-log';
import { TEST_INTERNAL_TOKEN, TEST_SECRET_KEY } from './test-app';

export type Role = 'api' | 'worker' | 'all';

/**
 * A compiled service process (node dist/src/main.js), started exactly as an
 * operator would. The one way tests run the service as a process of its own.
 */
export interface ServiceProcess {
  role: Role;
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr, for failure messages; kept for the run's secret scan once it ends. */
  output: string[];
  /** http://127.0.0.1:PORT for a process that serves HTTP (api, all); null for a worker. */
  baseUrl: string | null;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment every process of one test shares: one database, the same secrets. */
export function serviceEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    DATABASE_URL: databaseUrl,
    WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
    INTERNAL_API_TOKEN: TEST_INTERNAL_TOKEN,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // Info, as the in-process test apps log: every line goes to the end-of-run secret scan.
    LOG_LEVEL: 'info',
    BASE_URL: 'http://api.test',
    ...extra,
  };
}

/**
 * Where the processes of one test keep recordings: one S3-protocol server
 * (s3rver, in a child process of its own) that every api process shares, with
 * no shared folder, so a recording stored through one is readable through the
 * other. The one place that picks the store for the multi-process test.
 */
export async function recordingStoreEnv(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const s3 = await startS3Server();
  return { env: s3.env, close: s3.close };
}

const isRunning = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

/**
 * Starts one process with the given role (environment from serviceEnv) and
 * waits until it serves (api, all) or has started its dispatcher (worker).
 * Its output goes to the run's log folder when it ends, however it ends.
 */
export async function startService(role: Role, env: Record<string, string>): Promise<ServiceProcess> {
  const serves = role !== 'worker';
  const port = serves ? await freePort() : 0;
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...env, ROLE: role, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout.on('data', (d) => output.push(String(d)));
  child.stderr.on('data', (d) => output.push(String(d)));
  // 'close' comes after the last output chunk, so the kept log is whole.
  child.once('close', () => keepChildLog(`service-${role}`, output.join('')));
  const exited = () =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      if (!isRunning(child)) return resolve({ code: child.exitCode, signal: child.signalCode });
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  const baseUrl = serves ? `http://127.0.0.1:${port}` : null;
  // main.js prints its banner once it listens (api, all) or has initialised (worker).
  await waitFor(
    () => {
      if (!isRunning(child)) throw new Error(`${role} process exited while starting:\n${output.join('')}`);
      return output.join('').includes(`Receptionist API (${role})`);
    },
    `the ${role} process to start`,
    // A bound for a hang: at load 25 on the 2-core machine, four processes starting at once took over a minute.
    180_000,
  );
  return { role, child, output, baseUrl, exited };
}

/** Ends a process this test started, if it still runs, and waits for it. */
export async function stopService(p: ServiceProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (isRunning(p.child)) p.child.kill(signal);
  await p.exited();
}

/**
 * One client over several api processes: `request` spreads calls round robin,
 * `via(i)` pins one to a given process (to prove a write through one is read through another).
 */
export class SpreadClient {
  private next = 0;
  /** How many requests each process answered. */
  readonly served: number[];

  /** `apis`: compiled processes, or an in-process app (anything serving the API at a baseUrl). */
  constructor(private readonly apis: { baseUrl: string | null }[]) {
    this.served = apis.map(() => 0);
  }

  request<T = any>(method: string, path: string, o: RequestOptions = {}): Promise<HttpResult<T>> {
    const i = this.next;
    this.next = (this.next + 1) % this.apis.length;
    return this.via<T>(i, method, path, o);
  }

  via<T = any>(i: number, method: string, path: string, o: RequestOptions = {}): Promise<HttpResult<T>> {
    this.served[i]++;
    return requestAt<T>(this.apis[i].baseUrl!, method, path, o);
  }

  /** Bytes, not text (recordings). */
  async bytesVia(i: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: Buffer }> {
    this.served[i]++;
    const base = this.apis[i].baseUrl!;
    const res = await checkResponse(base, 'GET', path, await fetch(new URL(path, base), { headers }));
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
  }
}
