// The Node versions this project runs on: package.json's `engines` range, read with semver (npm's own reading of it).
// `npm test` (scripts/test.mjs) checks it before anything else, so an older Node (20 is past its end of life and has
// no global WebSocket, which one test uses) stops the run at once with one line saying what to do, instead of failing
// a test minutes in. `. scripts/supported-node.sh` puts a supported Node on the shell's PATH.
import { readFileSync } from 'node:fs';
import semver from 'semver';

export const ENGINES = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;

/** The one line for a Node outside the engines range; null for one inside it. */
export function unsupportedNodeLine(version = process.versions.node) {
  if (semver.satisfies(version, ENGINES)) return null;
  return `npm test needs Node ${ENGINES} (package.json engines), and this is Node ${version}: run \`. scripts/supported-node.sh\` in this shell (it puts a supported Node on PATH), then npm test again.`;
}

/** Ends the process with that line (exit code 1) when this Node is outside the range. */
export function requireSupportedNode() {
  const line = unsupportedNodeLine();
  if (line === null) return;
  process.stderr.write(`${line}\n`);
  process.exit(1);
}
