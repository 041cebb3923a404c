import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (CI installs it): never a browser download. */
export const CHROMIUM = '/usr/bin/chromium';
/** Where browser tests leave their screenshots. */
export const BROWSER_OUTPUT = join(process.cwd(), 'test-output');

/**
 * Whether a browser test runs: skipped only on a workstation without Chromium (saying so); CI (.ci/run installs it)
 * runs it, and fails if it is missing.
 */
export function haveChromium(what: string): boolean {
  const have = existsSync(CHROMIUM) || process.env.CI === 'true';
  if (!have) console.warn(`SKIPPED: ${what} needs ${CHROMIUM} (apt-get install -y chromium); .ci/run installs it`);
  return have;
}

/** Headless Chromium without the background traffic and first-run work a test has no use for. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
