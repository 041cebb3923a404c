import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sqlSnapshots } from './sql-snapshots.js';

/**
 * `npm run sql:generate`: writes each statement source's `.sql` snapshot beside it (src/sql-snapshots.ts) and removes
 * a snapshot whose source no longer holds a statement. Run from the TypeScript sources (no build).
 */
async function main(): Promise<void> {
  const src = join(process.cwd(), 'src');
  const snapshots = await sqlSnapshots(src);
  for (const [file, text] of snapshots) writeFileSync(join(src, file), text);
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.sql'))) {
    if (!snapshots.has(file)) rmSync(join(src, file));
  }
  process.stdout.write(`${snapshots.size} SQL snapshots written\n`);
}

void main();
