// Runs the listen command (LISTEN_PATH) in this process, with the arguments given here, and writes the process's
// peak resident memory (KiB) to LISTEN_RSS_FILE as it exits, whichever way it exits: what the command held at most.
import { writeFileSync } from 'node:fs';

process.on('exit', () => writeFileSync(process.env.LISTEN_RSS_FILE, String(process.resourceUsage().maxRSS)));
await import(process.env.LISTEN_PATH);
