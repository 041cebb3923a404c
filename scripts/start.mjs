// `npm start`: builds dist/ when the sources changed (ensure-built.mjs), then runs the service and stays its parent
// until it exits, with the service's exit code.
//
// The service runs in a process group of its own, with the PostgreSQL it starts: Ctrl-C at a terminal signals the
// whole foreground group at once, and PostgreSQL would stop at the same moment as the service it serves, failing the
// requests and deliveries the service is still draining. Here only this script (and npm) get the terminal's signals;
// SIGINT, SIGTERM and SIGHUP are passed on to the service, which drains, then stops its database, then exits.
// package.json runs this script with `exec`, so npm's own signal (npm passes SIGINT and SIGTERM to its child) reaches
// this process rather than a shell that would die of it and leave the service running.
import { spawn } from 'node:child_process';
import './ensure-built.mjs';

const root = new URL('..', import.meta.url).pathname;
const service = spawn(process.execPath, [...process.execArgv, 'dist/src/main.js', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  detached: true,
  env: demoEnv(process.env),
});

/**
 * The demo (`npm start` on the embedded database) sends webhooks to a receiver on this machine from its first start, as
 * the README's tour does: it sets WEBHOOK_ALLOW_PRIVATE_TARGETS=true unless the variable is set, and says so. The
 * service's own default stays false: a deployment (DATABASE_URL, or `node dist/src/main.js` as the image runs it)
 * reaches only public addresses.
 */
function demoEnv(env) {
  if (env.DATABASE_URL || env.WEBHOOK_ALLOW_PRIVATE_TARGETS !== undefined) return env;
  process.stderr.write(
    'npm start on the embedded database (the demo) sets WEBHOOK_ALLOW_PRIVATE_TARGETS=true, so webhooks reach receivers on ' +
      'this machine; WEBHOOK_ALLOW_PRIVATE_TARGETS=false refuses them, as a deployment on DATABASE_URL does.\n',
  );
  return { ...env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const passOn = (signal) => service.exitCode === null && service.signalCode === null && service.kill(signal);
for (const signal of SIGNALS) process.on(signal, passOn);

service.on('error', (err) => {
  process.stderr.write(`could not start the service: ${err.message}\n`);
  process.exit(1);
});
service.on('exit', (code, signal) => {
  if (signal === null) process.exit(code ?? 1);
  // Ended by a signal it did not handle: end the same way, so npm and the shell see what happened.
  for (const s of SIGNALS) process.off(s, passOn);
  process.kill(process.pid, signal);
});
