#!/usr/bin/env node
/**
 * The checks `npm test` runs before Jest, each its own package script, run side by side (as many at
 * once as the machine has cores, at least two), longest first. None reads what another writes (the
 * type-check, ESLint and dependency-cruiser read the sources, never dist/), and each is a single
 * thread, so on two cores this takes about half the time of running them one after another. Each
 * check's output is printed whole when it ends, so a failure reads as it would alone; every check
 * runs to its end, and the exit code is 1 if any failed.
 *
 *   node scripts/checks.mjs            (npm test runs it, then Jest)
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Package scripts, longest first (seconds on the 2-core machine: ESLint with type information ~27, Prettier ~11, tsc ~10, nest build ~9). */
const CHECKS = ['lint:eslint', 'lint:format', 'typecheck', 'build', 'lint:deps'];
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

const queue = [...CHECKS];
const lanes = Array.from({ length: Math.min(CHECKS.length, Math.max(2, availableParallelism())) }, async () => {
  const results = [];
  for (let script = queue.shift(); script !== undefined; script = queue.shift()) results.push(await run(script));
  return results;
});
const passed = (await Promise.all(lanes)).flat().every(Boolean);
process.exit(passed ? 0 : 1);
