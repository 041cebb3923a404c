import { spawn } from 'node:child_process';

/** What a bench run printed, and how it ended. */
export interface BenchRunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a bench (`bench/<name>.bench.mjs`) in a process group of its own, so whatever it leaves running (service
 * processes, PostgreSQL) goes with it when it exits; stopped 30 s before `timeoutMs` (a hang), so its own log says
 * where it stood. The chaos and failover tests run their benches this way.
 */
export function runBenchInGroup(file: string, env: Record<string, string>, timeoutMs: number): Promise<BenchRunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    };
    const deadline = setTimeout(() => {
      stderr += `\n[test] the bench was stopped after ${(timeoutMs - 30_000) / 1000} s\n`;
      killGroup();
    }, timeoutMs - 30_000);
    child.once('exit', () => {
      clearTimeout(deadline);
      killGroup();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
