import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sqlSnapshots } from './sql-snapshots';

const SRC = join(process.cwd(), 'src');

/**
 * Every hand-written statement is checked in beside its repository (`*.sql`, made by `npm run sql:generate`): a
 * statement changed in the code and not in its snapshot, or the reverse, fails here, so a review sees every SQL
 * change as a diff of SQL.
 */
describe('SQL snapshots', () => {
  it('hold exactly the statements the code runs', async () => {
    const snapshots = await sqlSnapshots(SRC);
    const onDisk = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.sql'));
    expect(onDisk.sort()).toEqual([...snapshots.keys()].sort());
    for (const [file, text] of snapshots) {
      expect({ file, text: readFileSync(join(SRC, file), 'utf8') }).toEqual({ file, text });
    }
  });
});
