import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/net';
import { hold } from './support/time';

/** A clean stop takes a few seconds on a loaded machine; past this, it is not stopping. */
const STOP_WITHIN_MS = 60_000;

interface Proc {
  pid: number;
  ppid: number;
  args: string;
}

/** The process table, as `ps` shows it. */
function processTable(): Proc[] {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
}

/** The process and every process below it. */
function tree(root: number): Proc[] {
  const table = processTable();
  const found = table.filter((p) => p.pid === root);
  for (let i = 0; i < found.length; i++) found.push(...table.filter((p) => p.ppid === found[i].pid));
  return found;
}

interface Started {
  npm: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** npm, the start script, the service and its PostgreSQL, as they run once the service answers. */
  processes: Proc[];
}

/**
 * `npm start` as a person or a process manager runs it, in a process group of its own (as a terminal runs a job),
 * on the embedded database under `dataDir`; resolves once the service answers.
 */
async function npmStart(env: Record<string, string>, port: number): Promise<Started> {
  const npm = spawn('npm', ['start'], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', npm_config_update_notifier: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  npm.stdout!.on('data', (d) => (out += d));
  npm.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((done) => npm.once('exit', (code) => done(code)));
  let early = false;
  void exited.then(() => (early = true));
  for (;;) {
    if (early) throw new Error(`npm start exited early:\n${out}`);
    const ok = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await hold(200);
  }
  return { npm, output: () => out, exited, processes: tree(npm.pid!) };
}

/** npm's exit code, or what says it did not exit in time. */
async function exitWithin(s: Started, ms: number): Promise<number | null | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`still running after ${ms} ms`), ms)));
  try {
    return await Promise.race([s.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The service's own node process (`dist/src/main.js`) among the started ones. */
const serviceOf = (s: Started) => s.processes.find((p) => /\bdist\/src\/main\.js\b/.test(p.args))!;

/**
 * `npm start` stops on SIGTERM and SIGINT, sent to npm, to the service's node
 * process, or to the whole group as Ctrl-C at a terminal does: exit code 0,
 * no warning or error line, and no process of it left (the service drained,
 * then stopped the PostgreSQL it started).
 */
describe('npm start stops cleanly on SIGTERM and SIGINT', () => {
  /** One data folder for every start (the first makes the cluster and the demo firm, the others reuse them). */
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'clean-stop-'));
    chmodSync(dataDir, 0o777);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  // The three ways README names, which between them take every path a stop can take (each start costs seconds of
  // CPU, so no pair is repeated): npm passes SIGTERM to start.mjs only because package.json `exec`s it, and start.mjs
  // passes it on (npm); the service's own handler runs, and start.mjs exits with the service's code (node); start.mjs
  // passes SIGINT on while its own group gets it, and the service handles SIGINT (group). main.ts gives SIGTERM and
  // SIGINT one handler, so SIGINT to node or to npm alone would take no path these do not.
  it.each([
    ['SIGTERM', 'the npm process'],
    ['SIGTERM', 'the node process'],
    ['SIGINT', 'the whole process group (Ctrl-C)'],
  ] as const)('%s to %s', async (signal, target) => {
    const port = await freePort();
    const env = { DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()) };
    const started = await npmStart(env, port);
    const pids = started.processes.map((p) => p.pid);
    try {
      // The service and its PostgreSQL (with PostgreSQL's own workers) run below npm.
      expect(started.processes.map((p) => p.args).join('\n')).toMatch(/dist\/src\/main\.js[^]*postgres -D/);
      if (target === 'the npm process') process.kill(started.npm.pid!, signal);
      else if (target === 'the node process') process.kill(serviceOf(started).pid, signal);
      else process.kill(-started.npm.pid!, signal);
      const code = await exitWithin(started, STOP_WITHIN_MS);
      const lines = started.output().split('\n');
      // Pino JSON lines below warn (40), and no other line that warns or fails (npm's own `npm error` included), but the
      // warnings the demo starts with (banner and log): `npm start` on the embedded database lets webhooks reach this machine.
      const demoWarning = /^(WARNING: )?WEBHOOK_ALLOW_PRIVATE_TARGETS=true/;
      const bad = lines.filter((l) =>
        l.startsWith('{')
          ? (JSON.parse(l) as { level: number }).level >= 40 && !demoWarning.test((JSON.parse(l) as { msg: string }).msg)
          : /warn|error|fail/i.test(l) && !demoWarning.test(l),
      );
      expect({ code, bad }).toEqual({ code: 0, bad: [] });
      const left = processTable().filter((p) => pids.includes(p.pid) || p.args.includes(dataDir));
      expect(left).toEqual([]);
    } finally {
      started.npm.stdout!.destroy();
      started.npm.stderr!.destroy();
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone, as it should be
        }
      }
    }
  });
});
