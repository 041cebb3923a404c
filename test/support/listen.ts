import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { waitFor } from './receiver';
import { keepChildLog } from './run-log';

const LISTEN = resolve(process.cwd(), 'clients/typescript/bin/listen.mjs');

export interface Listening {
  child: ChildProcess;
  /** stdout, one parsed JSON object per line (every line must be one); with `text`, the lines as they are. */
  lines: any[];
  stderr: () => string;
  /** stdout as written. */
  stdout: () => string;
  exited: Promise<number | null>;
  /** With `measureRss`, once exited: the process's peak resident memory in MiB. */
  peakRssMiB: () => number;
}

/**
 * Runs the listen command with plain Node, as an integrator would; with `measureRss`, through a wrapper that records
 * the process's peak resident memory as it exits (test/support/listen-rss.mjs).
 */
export function listen(args: string[], text = false, opts: { measureRss?: boolean } = {}): Listening {
  const rssDir = opts.measureRss ? mkdtempSync(join(tmpdir(), 'listen-rss-')) : undefined;
  const rssFile = rssDir && join(rssDir, 'maxrss');
  const child = rssFile
    ? spawn(process.execPath, [resolve(process.cwd(), 'test/support/listen-rss.mjs'), ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, LISTEN_PATH: LISTEN, LISTEN_RSS_FILE: rssFile },
      })
    : spawn(process.execPath, [LISTEN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let peakRss = NaN;
  const lines: any[] = [];
  let pending = '';
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
    pending += d;
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const line of parts) lines.push(text ? line : JSON.parse(line));
  });
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((done) =>
    child.once('close', (code) => {
      // The generated signing secret is shown once on stderr by design (like the CLI's answers on stdout, which
      // are not kept either); everything else goes to the run's secret scan.
      keepChildLog('listen', stderr.replace(/whsec_\S+/g, 'whsec_[REDACTED]'));
      if (rssDir) {
        // Not written when the process was killed.
        if (existsSync(rssFile!)) peakRss = Number(readFileSync(rssFile!, 'utf8')) / 1024;
        rmSync(rssDir, { recursive: true, force: true });
      }
      done(code);
    }),
  );
  return { child, lines, stderr: () => stderr, stdout: () => stdout, exited, peakRssMiB: () => peakRss };
}

/**
 * Expects the command to exit 1 within `timeoutMs` with the error as the last line on stderr: every line is one of
 * the command's own (`listen: ...`), never a stack trace.
 */
export async function expectOneLineError(l: Listening, pattern: RegExp, timeoutMs = 15_000): Promise<void> {
  expect(await waitFor(() => l.exited.then((code) => ({ code })), 'the command to exit', timeoutMs)).toEqual({ code: 1 });
  const lines = l.stderr().trimEnd().split('\n');
  expect(lines.filter((line) => !line.startsWith('listen: '))).toEqual([]);
  expect(lines.at(-1)).toMatch(pattern);
}

/** Stops a command that is still running and expects a clean exit. */
export async function stopped(l: Listening): Promise<void> {
  expect(l.child.exitCode).toBeNull();
  l.child.kill('SIGTERM');
  expect(await l.exited).toBe(0);
}
