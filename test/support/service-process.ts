import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './net';
import { waitFor } from './receiver';
import { keepChildLog } from './run-log';
import { TEST_SECRET_KEY } from './test-app';

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The compiled service (dist/src/main.js) as its own process, in the given role, ready to answer. */
export async function startService(opts: {
  role: 'api' | 'worker' | 'all';
  databaseUrl: string;
  env?: Record<string, string>;
}): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      ROLE: opts.role,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: opts.databaseUrl,
      WEBHOOK_SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'info',
      BASE_URL: 'http://api.test',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout.on('data', (d) => output.push(String(d)));
  child.stderr.on('data', (d) => output.push(String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      keepChildLog('service', output.join(''));
      resolve({ code, signal });
    }),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  if (opts.role !== 'worker') {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`service exited at start: ${output.join('')}`);
        return fetch(`${baseUrl}/v1/health`).then(
          (r) => r.ok,
          () => false,
        );
      },
      'the service to listen',
      20_000,
    );
  }
  return { child, baseUrl, output, exited };
}
