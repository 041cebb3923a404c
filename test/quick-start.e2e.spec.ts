import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from './support/cli';
import { checkResponse } from './support/conformance';
import { freePort } from './support/net';

/**
 * `npm start` as a user runs it (what package.json's start script execs: scripts/start.mjs, which starts the compiled
 * service on the embedded database), nothing else. Not test/support/processes.ts: that helper keeps every child's
 * output for the run's secret scan, and this output holds the demo key that the first start prints by design (the scan
 * would rightly flag it).
 */
function startService(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
  ready: Promise<void>;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, [resolve(process.cwd(), 'scripts/start.mjs')], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const ready = new Promise<void>((ok, fail) => {
    const timer = setInterval(() => {
      if (out.includes('Swagger UI:')) {
        clearInterval(timer);
        ok();
      }
    }, 50);
    child.once('exit', () => {
      clearInterval(timer);
      fail(new Error(`service exited early:\n${out}`));
    });
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output: () => out, ready, exited };
}

/** The README's tour block, pointed at this service, its key and a free receiver port. */
function readmeTour(base: string, key: string, hookPort: number): string {
  const readme = readFileSync(resolve(process.cwd(), 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A five-minute tour'));
  const block = section.slice(section.indexOf('```sh\n') + 6, section.indexOf('\n```', section.indexOf('```sh\n') + 6));
  const pointed = block.replace(/^export API=.*$/m, `export API=${base} KEY=${key}`).replace(/^HOOK_PORT=4000$/m, `HOOK_PORT=${hookPort}`);
  // Both lines must have been found: a tour rewritten without them would otherwise run against port 3000.
  expect(pointed).toContain(`KEY=${key}`);
  expect(pointed).toContain(`HOOK_PORT=${hookPort}`);
  return pointed;
}

describe('quick start on the embedded database', () => {
  it('first start seeds a demo firm and prints its key once; the README tour, pasted as written, runs against it with nothing on stderr; the CLI joins the running database; SIGTERM exits cleanly; a restart reuses the data', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'quick-start-'));
    chmodSync(dataDir, 0o777);
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    const base = `http://localhost:${env.PORT}`;
    // A user's plain fetch, checked against the document the service serves like every other answer in the suite.
    const get = async (path: string, key: string) =>
      checkResponse(base, 'GET', path, await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } }));

    // `npm start` with nothing set, as the README's quick start says: the demo lets webhooks reach this machine, and says so.
    const first = startService(env);
    let key: string;
    try {
      await first.ready;
      // One key is printed (on its own line and in the curl example): the demo firm's, "Read and update leads".
      const keys = [...new Set(first.output().match(/svc_live_[A-Za-z0-9_-]{43,}/g) ?? [])];
      expect(keys).toHaveLength(1);
      key = keys[0];
      expect(first.output()).toContain(`${base}/docs`);
      const account = await get('/v1/account', key);
      expect(account.status).toBe(200);
      expect(((await account.json()) as any).api_key.scopes).toContain('leads:write');
      const calls = (await (await get('/v1/calls?limit=100', key)).json()) as any;
      expect(calls.calls).toHaveLength(100);

      await runReadmeTour(base, key, dataDir, env.EMBEDDED_PG_PORT);
      // It could, because the demo sends webhooks to this machine, and said so when it started.
      expect(first.output()).toContain('sets WEBHOOK_ALLOW_PRIVATE_TARGETS=true');

      // The CLI uses the server the service started, not a second one on the same data: the key it makes works on the
      // service at once. (Which firms the data holds is read after the restart below: the same list, one CLI run less.)
      const made = await runCli(['key', 'create', '--org', 'harper-legal', '--name', 'from the CLI', '--set', 'read', '--json'], { env });
      expect(made.code).toBe(0);
      expect((await get('/v1/account', made.json.key)).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
    }
    // The output's tail rides along so a failed shutdown shows its cause.
    expect({ code: await first.exited, tail: first.output().slice(-2000) }).toEqual({ code: 0, tail: expect.any(String) });

    // A later start reuses the data and prints no key.
    const second = startService(env);
    try {
      await second.ready;
      expect(second.output()).not.toMatch(/svc_live_/);
      // The first start seeded exactly the demo firm, and the restart seeded none (the CLI joins this server too).
      const orgs = await runCli(['org', 'list', '--json'], { env });
      expect(orgs.code).toBe(0);
      expect(orgs.json.orgs.map((o: { slug: string }) => o.slug)).toEqual(['harper-legal']);
    } finally {
      second.child.kill('SIGTERM');
    }
    expect({ code: await second.exited, tail: second.output().slice(-2000) }).toEqual({ code: 0, tail: expect.any(String) });
    // The service stopped the cluster it started: its 75 MB need not outlive the test.
    rmSync(dataDir, { recursive: true, force: true });
    // A bound for a hang, not for speed: two starts of the service, the CLI and the README's tour took over 180 s with
    // three suites on the 2-core machine (load 12 to 20).
  }, 600_000);

  it("the README's waits for a receiver's files print nothing while those files do not exist yet", async () => {
    // The receiver's log is made by the backgrounded command's redirection, which may come after the first check.
    const waits = readFileSync(resolve(process.cwd(), 'README.md'), 'utf8')
      .split('\n')
      .filter((line) => /^for i in \$\(seq \d+\); do .*"\$RX\//.test(line));
    expect(waits.length).toBeGreaterThanOrEqual(4);
    const rx = mkdtempSync(join(tmpdir(), 'quick-start-waits-'));
    try {
      const appear = `(sleep 0.5; echo listening > "$RX/receiver.log"; printf '%s\\n' '{"kind":"ready"}' '{"kind":"forwarded","type":"lead.updated"}' > "$RX/listen.log"; printf '%s\\n' call.completed lead.created lead.updated > "$RX/handled.ndjson") &`;
      const started = Date.now();
      const { code, stderr } = await runBash([`RX=${rx}`, appear, ...waits, 'wait'].join('\n'));
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      // Each wait ended when its file appeared, not when its loop ran out.
      expect(Date.now() - started).toBeLessThan(9_000);
    } finally {
      rmSync(rx, { recursive: true, force: true });
    }
  });
});

/**
 * The README's tour pasted into bash as a reader pastes it (only the key and the receiver's port filled in), against
 * the service the first `npm start` made: every step answers as the README says, and nothing reaches stderr (the tour
 * once printed only `grep: .../receiver.log: No such file` and `cat: .../handled.ndjson: No such file` when its webhook
 * step could not work).
 */
async function runReadmeTour(base: string, key: string, dataDir: string, pgPort: string): Promise<void> {
  const script = readmeTour(base, key, await freePort());
  const { code, stdout, stderr } = await runBash(script, { DATA_DIR: dataDir, EMBEDDED_PG_PORT: pgPort });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  // The PATCH changed the lead; the test delivery was queued; the receiver handled it, which it does only after
  // standardwebhooks verified the signature with the secret the CLI printed.
  expect(stdout).toMatch(/"changed": true,\s*"status": "contacted"/);
  expect(stdout).toContain('"pending"');
  const handled = stdout
    .split('\n')
    .filter((l) => l.startsWith('{"id":"evt_'))
    .map((l) => JSON.parse(l));
  expect(handled).toEqual([{ id: expect.stringMatching(/^evt_/), type: 'webhook.test', via: 'webhook', action: 'handled' }]);
  // The tour removes the live endpoint it made: none is left to be sent the firm's later changes.
  expect(stdout).toMatch(/^\{"id":"[^"]+","deleted":true\}$/m);
  const left = await fetch(`${base}/v1/webhook-endpoints`, { headers: { authorization: `Bearer ${key}` } });
  await checkResponse(base, 'GET', '/v1/webhook-endpoints', left);
  expect(((await left.json()) as { endpoints: unknown[] }).endpoints).toEqual([]);
}

/** A script run by bash as a terminal would run it pasted: `-euo pipefail`, nothing on stdin, a plain environment. */
async function runBash(script: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // stdin is not a pipe: bash takes a socket on stdin for sshd's and reads the system bashrc (PS1 unbound under -u).
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((done) => child.once('close', done));
  return { code, stdout, stderr };
}
