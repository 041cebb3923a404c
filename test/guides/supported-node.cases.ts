import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ENGINES, unsupportedNodeLine } from '../../scripts/supported-node.mjs';

/**
 * The README's quick start on an older Node: `npm test` stops at once with one line saying to run
 * `. scripts/supported-node.sh`, rather than failing one test minutes in (Node 20 has no global WebSocket). Run for
 * real under a Node the engines range leaves out: this Node made to report 20.20.2, and, where the machine has one
 * (this machine's own /usr/bin/node is 20), an old Node found on PATH.
 */
interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs a command in a process group of its own, ended whole (SIGKILL) after `limitMs`: should the check ever be gone,
 * what it would start (the checks and Jest, the whole suite) stops with it instead of running on.
 */
function run(command: string, args: string[], env: Record<string, string> = {}, limitMs = 15_000): Promise<Ran> {
  const started = Date.now();
  const child = spawn(command, args, {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', npm_config_update_notifier: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const limit = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), limitMs);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((done) =>
    child.once('close', (code) => {
      clearTimeout(limit);
      done({ code, stdout, stderr, ms: Date.now() - started });
    }),
  );
}

/** Preloaded, it makes this Node report another version to everything that runs after it. */
const reportVersion = (version: string) =>
  `data:text/javascript,Object.defineProperty(process.versions,'node',{value:${JSON.stringify(version)}})`;

/** A `node` on PATH whose version the engines range leaves out (with the `npm` beside it), if the machine has one. */
function oldNodeOnPath(): { dir: string; version: string } | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const node = join(dir, 'node');
    if (!dir || !existsSync(node) || !existsSync(join(dir, 'npm'))) continue;
    const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (version && unsupportedNodeLine(version) !== null) return { dir, version };
  }
  return undefined;
}

describe('npm test on a Node the engines range leaves out', () => {
  it('reads the engines range: versions below it get one line naming the fix, versions in it none', () => {
    expect(ENGINES).toBe('^22.22.3 || ^24.15.0 || >=26');
    for (const version of ['20.20.2', '22.22.2', '23.11.0', '24.14.1', '18.20.8'])
      expect([version, unsupportedNodeLine(version)]).toEqual([version, expect.stringContaining('run `. scripts/supported-node.sh`')]);
    for (const version of ['22.22.3', '22.23.3', '24.15.0', '26.0.0', process.versions.node])
      expect([version, unsupportedNodeLine(version)]).toEqual([version, null]);
    expect(unsupportedNodeLine('20.20.2')).not.toContain('\n');
  });

  it('stops at once with that one line and exit code 1, before the build or Jest start', async () => {
    const faked = await run(process.execPath, ['--import', reportVersion('20.20.2'), 'scripts/test.mjs']);
    expect(faked).toEqual({ code: 1, stdout: '', stderr: `${unsupportedNodeLine('20.20.2')}\n`, ms: expect.any(Number) });
    // "At once": a build alone takes seconds (and would print `> build`); this is one Node start.
    expect(faked.ms).toBeLessThan(10_000);

    const old = oldNodeOnPath();
    if (!old) return;
    // The real thing: `npm test` with the machine's old Node first on PATH, as in a shell before the script is sourced.
    const real = await run('npm', ['test'], { PATH: `${old.dir}${delimiter}${process.env.PATH ?? ''}` });
    expect(real.code).toBe(1);
    expect(real.stderr.split('\n').filter((line) => line.includes('scripts/supported-node.sh'))).toEqual([
      unsupportedNodeLine(old.version),
    ]);
    expect(real.stdout).not.toMatch(/> build|jest/);
    expect(real.ms).toBeLessThan(15_000);
  });
});
