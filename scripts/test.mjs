#!/usr/bin/env node
/**
 * `npm test`: the checks (scripts/checks.mjs) and Jest, Jest starting as soon as the build has made dist/ (the e2e
 * files start compiled processes; nothing else Jest runs reads what a check writes) while ESLint, the type-check,
 * Prettier and dependency-cruiser go on beside it, one at a time. The checks used to run first, two at a time, and
 * Jest only after all of them (about 50 s of a run on the 2-core machine). The exit code is 1 if any check or Jest
 * failed, 0 when all passed; arguments go to Jest (`npm test -- --randomize`).
 */
import { spawn } from 'node:child_process';
import { runChecks } from './checks.mjs';
import { requireSupportedNode } from './supported-node.mjs';

// Before anything starts: on a Node the engines range leaves out, one line saying what to do, and exit code 1.
requireSupportedNode();

const jestArgs = ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', ...process.argv.slice(2)];

let jest = null;
let jestPassed;
const jestEnded = new Promise((resolve) => (jestPassed = resolve));

const checksPassed = await runChecks({
  // Once Jest runs, the checks left take one lane, so Jest's workers keep the cores they need.
  lanes: () => (jest ? 1 : 2),
  onEnd: (script, ok) => {
    if (script !== 'build') return;
    if (!ok) {
      process.stdout.write('> jest: not run, the build failed\n');
      jestPassed(false);
      return;
    }
    jest = spawn(process.execPath, jestArgs, { stdio: 'inherit' });
    jest.on('close', (code) => jestPassed(code === 0));
  },
});
process.stdout.write(`> checks: ${checksPassed ? 'all passed' : 'FAILED (see above)'}\n`);
process.exit((await jestEnded) && checksPassed ? 0 : 1);
