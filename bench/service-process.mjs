import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Starts the compiled service as a ROLE=api process on a free loopback port; resolves once its banner is out. */
export async function startApi(env) {
  const { child, baseUrl } = await startService('api', env);
  return { child, baseUrl };
}

/**
 * Starts the compiled service with a role (api: on a free loopback port); resolves once its banner is out, with
 * `output()` (what it wrote so far) and `exited` (set when it exits: {code, signal}).
 */
export async function startService(role, env) {
  // The free port is free when asked, not when the service binds it: another process (a bench beside this one) can
  // take it in between. Then the service exits with EADDRINUSE, and another port is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOnce(role, env);
    } catch (err) {
      if (attempt >= 3 || !String(err.message).includes('EADDRINUSE')) throw err;
    }
  }
}

async function startServiceOnce(role, env) {
  const port = role === 'worker' ? 0 : await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env, ROLE: role, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output = (output + d).slice(-200_000)));
  child.stderr.on('data', (d) => (output = (output + d).slice(-200_000)));
  const service = { role, child, baseUrl: role === 'worker' ? null : `http://127.0.0.1:${port}`, exited: null, output: () => output };
  child.once('exit', (code, signal) => (service.exited = { code, signal }));
  const deadline = Date.now() + 60_000;
  while (!output.includes(`Receptionist API (${role})`)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the ${role} process did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return service;
}

/** The service's environment for an s3rver on `port` holding the bucket `recordings`. */
export function s3rverEnv(port) {
  return {
    RECORDING_STORE: 's3',
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_BUCKET: 'recordings',
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}
