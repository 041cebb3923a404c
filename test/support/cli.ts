import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { keepChildLog } from './run-log';
import { TEST_SECRET_KEY } from './test-app';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed, when it is exactly one JSON object. */
  json: any;
}

const CLI = resolve(process.cwd(), 'dist/src/cli/main.js');

/** Runs the compiled CLI as a separate process, exactly as an operator would. */
export function runCli(
  args: string[],
  opts: { env?: Record<string, string>; databaseUrl?: string; stdin?: string } = {},
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'info',
      ...opts.env,
    };
    if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      // Logs go to stderr; stdout is the command's answer (which may rightly show a new key or secret once).
      keepChildLog('cli', stderr);
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolvePromise({ code: code ?? -1, stdout, stderr, json });
    });
    child.stdin.end(opts.stdin ?? '');
  });
}
