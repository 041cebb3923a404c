import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { reportConformanceCoverage } from './conformance-coverage.mjs';

/** Same as TOKEN_RUN and LIVE_TOKENS_SUFFIX in run-log.ts (this file is plain JavaScript, loaded before any TypeScript). */
const TOKEN_RUN = 20;
const LIVE_TOKENS_SUFFIX = '.live-tokens';

/** Every TOKEN_RUN-character piece of the live tokens tests registered (registerLiveToken). */
function liveTokenWindows(dir, files) {
  const windows = new Set();
  for (const file of files.filter((f) => f.endsWith(LIVE_TOKENS_SUFFIX))) {
    for (const token of readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean)) {
      for (let i = 0; i + TOKEN_RUN <= token.length; i++) windows.add(token.slice(i, i + TOKEN_RUN));
    }
  }
  return windows;
}

/** The line with each run holding TOKEN_RUN consecutive characters of a live token cut out; null when it holds none. */
function cutTokenRuns(line, windows) {
  if (windows.size === 0) return null;
  const runs = (line.match(/[A-Za-z0-9_-]{20,}/g) ?? []).filter((run) => {
    for (let i = 0; i + TOKEN_RUN <= run.length; i++) if (windows.has(run.slice(i, i + TOKEN_RUN))) return true;
    return false;
  });
  return runs.length ? runs.reduce((text, run) => text.split(run).join('<token run>'), line) : null;
}

/**
 * No API key, whsec_ secret, link token, internal token or Authorization
 * header in any log line of the whole run: every test app and child process
 * logged into TEST_LOG_DIR (test/support/run-log.ts); a line carrying one of
 * the shapes in secret-shapes.json fails the run, listed with the secret cut
 * out, and so does a line holding 20 consecutive characters of a live link
 * token a test registered, whatever its shape around them (a near miss).
 */
function scanRunLogs() {
  const dir = process.env.TEST_LOG_DIR;
  if (!dir) return;
  const { shapes } = JSON.parse(readFileSync(resolve(process.cwd(), 'test/support/secret-shapes.json'), 'utf8'));
  const found = [];
  let lines = 0;
  const files = readdirSync(dir);
  const windows = liveTokenWindows(dir, files);
  for (const file of files.filter((f) => !f.endsWith(LIVE_TOKENS_SUFFIX))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      lines++;
      const cut = cutTokenRuns(line, windows);
      if (cut) found.push(`  ${TOKEN_RUN} characters of a live link token (${file}): ${cut.slice(0, 300)}`);
      for (const s of shapes) {
        if (new RegExp(s.pattern, s.flags ?? '').test(line)) {
          const redacted = line.replace(new RegExp(s.pattern, `g${s.flags ?? ''}`), '<secret>').slice(0, 300);
          found.push(`  ${s.name} (${file}): ${redacted}`);
        }
      }
    }
  }
  if (found.length > 0) {
    throw new Error(
      `${found.length} log line(s) of ${lines} carry a secret (logs kept in ${dir}):\n${found.slice(0, 40).join('\n')}` +
        (found.length > 40 ? `\n  ... and ${found.length - 40} more` : ''),
    );
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Removes a stopped cluster's folder in a detached process, so the run's result does not wait for it: unlinking the
 * run's 600 MB of database files took most of a loaded run's 200 s teardown (another suite's `npm ci` writing to the
 * same disk), and about 18 s of a run alone.
 */
function removeAfterExit(dir) {
  const script = 'require("node:fs").rmSync(process.argv[1], { recursive: true, force: true })';
  spawn(process.execPath, ['-e', script, dir], { detached: true, stdio: 'ignore' }).unref();
}

/** Runs every step, even after one fails; then fails with all their errors. */
async function runAll(steps) {
  const errors = [];
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, errors.map((e) => e?.message ?? String(e)).join('\n\n'));
}

/** The log scan and the conformance report both run and both count: a failure of either fails the run. */
export default async function globalTeardown(globalConfig) {
  await runAll([
    scanRunLogs,
    async () => {
      if (globalThis.__xminHolder) await globalThis.__xminHolder();
    },
    async () => {
      if (globalThis.__stopDatabaseStock) await globalThis.__stopDatabaseStock();
    },
    async () => {
      if (globalThis.__testPg) await globalThis.__testPg.stop();
      // The run's cluster is throw-away: hundreds of MB a run otherwise stay in the temp folder.
      if (globalThis.__testPgDir) removeAfterExit(globalThis.__testPgDir);
    },
    () => reportConformanceCoverage(globalConfig),
  ]);
  if (process.env.TEST_CONFORMANCE_DIR) rmSync(process.env.TEST_CONFORMANCE_DIR, { recursive: true, force: true });
}
