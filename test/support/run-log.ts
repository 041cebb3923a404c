import { appendFileSync, createWriteStream, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';

/**
 * Every log line of the test run goes to files under TEST_LOG_DIR (made by
 * global-setup.mjs); global-teardown.mjs searches them all for secrets.
 */
const dir = () => process.env.TEST_LOG_DIR;
let seq = 0;
const fileFor = (kind: string) => join(dir()!, `${kind}-${process.pid}-${++seq}.log`);

export interface CapturedLog {
  /** Where the app writes (also into the test's own stream, if it gave one). */
  stream: NodeJS.WritableStream | undefined;
  /** LOG_LEVEL for the app: info, unless the run is not capturing. */
  level: string;
  close(): Promise<void>;
}

export function captureAppLog(own?: NodeJS.WritableStream): CapturedLog {
  if (!dir()) return { stream: own, level: 'silent', close: async () => undefined };
  const file: Writable = createWriteStream(fileFor('app'), { flags: 'a' });
  let stream: NodeJS.WritableStream = file;
  if (own) {
    const tee = new PassThrough();
    tee.on('data', (chunk: Buffer) => {
      own.write(chunk);
      file.write(chunk);
    });
    stream = tee;
  }
  return {
    stream,
    level: 'info',
    close: () => new Promise<void>((resolve) => file.end(resolve)),
  };
}

/** The log output of a child process (CLI stderr, a service's JSON lines), kept for the end-of-run search. */
export function keepChildLog(kind: string, text: string): void {
  if (dir() && text) appendFileSync(fileFor(kind), text.endsWith('\n') ? text : text + '\n');
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
