import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
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
}

/** Runs the listen command with plain Node, as an integrator would. */
export function listen(args: string[], text = false): Listening {
  const child = spawn(process.execPath, [LISTEN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
      done(code);
    }),
  );
  return { child, lines, stderr: () => stderr, stdout: () => stdout, exited };
}
