import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The committed Ogg Opus fixtures (synthesized speech) that stand in for call recordings. */
const ENGLISH = ['receptionist-greeting.ogg', 'injury-caller.ogg'] as const;
const SPANISH = 'spanish-caller.ogg';

/**
 * The committed fixtures folder, looked for upward from the running script
 * (dist/src/... of the service or CLI, wherever it is started from) and from
 * the working folder (tests, the image's /app).
 */
function demoRecordingsFolder(): string {
  const starts = [process.argv[1] ? dirname(resolve(process.argv[1])) : null, process.cwd()].filter((d): d is string => d !== null);
  for (const start of starts) {
    for (let d = start; ; d = dirname(d)) {
      const candidate = join(d, 'fixtures', 'recordings');
      if (existsSync(join(candidate, ENGLISH[0]))) return candidate;
      if (dirname(d) === d) break;
    }
  }
  throw new Error(`demo recordings (fixtures/recordings) not found above ${starts.join(' or ')}`);
}

/** A playable recording for a call in `language`: Spanish speech for Spanish calls, else the n-th English one (n cycles). */
export function demoRecordingPath(language: string | null, n: number): string {
  const file = language === 'es' ? SPANISH : ENGLISH[Math.abs(n) % ENGLISH.length];
  return join(demoRecordingsFolder(), file);
}
