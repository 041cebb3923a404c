#!/usr/bin/env node
/**
 * The checks `npm test` runs beside Jest, each its own package script, run side by side (as many at once as the
 * machine has cores, at least two), longest first. None reads what another writes (the type-check, ESLint and
 * dependency-cruiser read the sources, never dist/), and each is a single thread, so on two cores this takes about
 * half the time of running them one after another. Each check's output is printed whole when it ends, so a failure
 * reads as it would alone; every check runs to its end.
 *
 *   node scripts/checks.mjs            (the checks alone; exit code 1 if any failed)
 *   node scripts/test.mjs              (npm test: the checks, and Jest once the build is done)
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * Package scripts: the build first (Jest waits for dist/ only), then longest first (seconds on the 2-core machine,
 * alone: ESLint with type information ~40, Prettier ~17, the type-check ~5 (TypeScript 7), nest build ~4 (SWC), dependency-cruiser ~5).
 */
export const CHECKS = ['build', 'lint:eslint', 'lint:format', 'typecheck', 'lint:deps'];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(script) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (d) => output.push(d));
    child.stderr.on('data', (d) => output.push(d));
    child.on('error', (err) => output.push(Buffer.from(`${err.stack}\n`)));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`> ${script}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(output));
      resolve(code === 0);
    });
  });
}

/**
 * Runs every check; resolves to true when all passed. `onEnd(script, ok)` hears of each as it ends; `lanes()` says how
 * many may run at once from now on (read before each new check starts: `npm test` narrows it to one once Jest runs,
 * so the checks left take one core and Jest's workers the rest).
 */
export async function runChecks({ onEnd = () => undefined, lanes = () => Math.max(2, availableParallelism()) } = {}) {
  const queue = [...CHECKS];
  let running = 0;
  let passed = true;
  return new Promise((resolve) => {
    const next = () => {
      while (queue.length > 0 && running < lanes()) {
        const script = queue.shift();
        running++;
        void run(script).then((ok) => {
          running--;
          passed &&= ok;
          onEnd(script, ok);
          next();
        });
      }
      if (queue.length === 0 && running === 0) resolve(passed);
    };
    next();
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit((await runChecks()) ? 0 : 1);
