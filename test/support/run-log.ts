import { appendFileSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PassThrough, Writable } from 'node:stream';

/**
 * Every log line of the test run goes to files under TEST_LOG_DIR (made by
 * global-setup.mjs); global-teardown.mjs searches them all for secrets.
 */
const dir = () => process.env.TEST_LOG_DIR;
let seq = 0;
const fileFor = (kind: string) => join(dir()!, `${kind}-${process.pid}-${++seq}.log`);

export interface CapturedLog {
  /** Where the app writes: the spec file's log hub (below). */
  stream: NodeJS.WritableStream | undefined;
  /** LOG_LEVEL for the app: info, unless the run is not capturing. */
  level: string;
  /** Detaches the test's own stream; the hub lives as long as the spec file's module registry. */
  close(): Promise<void>;
}

/**
 * nestjs-pino keeps one root logger per module registry, the first app's, and every app's Nest log lines (in a
 * request or not) go through it. A spec file that starts several apps (a group spec, or one app per configuration)
 * would send the later apps' lines to the first app's stream, open or closed, and a test reading its own app's log
 * would miss them and pass for nothing. So every app of a spec file writes to one hub: the run's log file (written
 * synchronously, so a worker that exits loses nothing; never ended, since any app may still log), and each test
 * stream attached while its app is open. A test's stream so sees every line of the file's apps in that time, its own
 * app's included.
 */
interface LogHub {
  stream: Writable;
  attached: Set<NodeJS.WritableStream>;
}
let hub: LogHub | undefined;

function logHub(): LogHub {
  if (hub === undefined) {
    const fd = openSync(fileFor('app'), 'a');
    const attached = new Set<NodeJS.WritableStream>();
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        writeSync(fd, chunk);
        for (const own of attached) own.write(chunk);
        done();
      },
    });
    hub = { stream, attached };
  }
  return hub;
}

export function captureAppLog(own?: NodeJS.WritableStream): CapturedLog {
  if (!dir()) return { stream: own, level: 'silent', close: async () => undefined };
  const { stream, attached } = logHub();
  if (own) attached.add(own);
  return {
    stream,
    level: 'info',
    close: async () => {
      if (own) attached.delete(own);
    },
  };
}

/** A log stream for startTestApp that keeps every non-empty line written to it, in order (`lines` grows as they come). */
export function collectLogLines(): { lines: string[]; stream: PassThrough } {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  return { lines, stream };
}

/** The log output of a child process (CLI stderr, a service's JSON lines), kept for the end-of-run search. */
export function keepChildLog(kind: string, text: string): void {
  if (dir() && text) appendFileSync(fileFor(kind), text.endsWith('\n') ? text : text + '\n');
}

/** Where a test file's live credentials are listed for the end-of-run scan (not itself a log: the scan skips it). */
export const LIVE_TOKENS_SUFFIX = '.live-tokens';
/** Shorter runs of a token are left to chance: 20 base64url characters are 120 bits. */
export const TOKEN_RUN = 20;

/**
 * A credential the run created and that must never reach a log, not even in
 * part: the end-of-run scan (global-teardown.mjs) fails on any line holding
 * TOKEN_RUN consecutive characters of it, whatever surrounds them.
 */
export function registerLiveToken(token: string): void {
  if (dir()) appendFileSync(join(dir()!, `tokens-${process.pid}${LIVE_TOKENS_SUFFIX}`), `${token}\n`);
}

/** Every recording-link token in an answer's text (the links a test creates through TestApp.request). */
export function registerLinkTokensIn(text: string): void {
  for (const m of text.matchAll(/\/v1\/recordings\/([A-Za-z0-9_-]{20,})/g)) registerLiveToken(m[1]);
}

/** The lines holding TOKEN_RUN or more consecutive characters of one of `tokens`, with the run cut out. */
export function tokenRunsIn(lines: string[], tokens: string[]): string[] {
  const windows = new Set(
    tokens.flatMap((t) => Array.from({ length: Math.max(0, t.length - TOKEN_RUN + 1) }, (_, i) => t.slice(i, i + TOKEN_RUN))),
  );
  const found: string[] = [];
  for (const line of lines) {
    for (const run of line.match(/[A-Za-z0-9_-]{20,}/g) ?? []) {
      let hit = false;
      for (let i = 0; i + TOKEN_RUN <= run.length && !hit; i++) hit = windows.has(run.slice(i, i + TOKEN_RUN));
      if (hit) found.push(line.split(run).join('<token run>').slice(0, 300));
    }
  }
  return found;
}

interface Shape {
  name: string;
  pattern: string;
  flags?: string;
}
const SHAPES: Shape[] = (JSON.parse(readFileSync(resolve(process.cwd(), 'test/support/secret-shapes.json'), 'utf8')) as { shapes: Shape[] })
  .shapes;

/** The lines that carry a secret, each with the shape found and the secret cut out. */
export function secretsIn(lines: string[]): string[] {
  const found: string[] = [];
  for (const line of lines) {
    for (const s of SHAPES) {
      const re = new RegExp(s.pattern, s.flags ?? '');
      if (re.test(line)) found.push(`${s.name}: ${line.replace(new RegExp(s.pattern, `g${s.flags ?? ''}`), '<secret>').slice(0, 300)}`);
    }
  }
  return found;
}
