import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CallEntity } from '../calls/entities/call.entity.js';
import { columns } from './columns.js';

/** The project's root: Jest runs from it. */
const root = process.cwd();

describe('columns', () => {
  it("names each column as the entity's metadata does, under the alias or alone", () => {
    const c = columns(CallEntity, 'c');
    expect(c.startedAt).toBe('c.started_at');
    expect(c.fromE164).toBe('c.from_e164');
    expect(c.livemode).toBe('c.livemode');
    expect(columns(CallEntity).durationS).toBe('duration_s');
    expect(columns(CallEntity, 'EXCLUDED').callId).toBe('EXCLUDED.call_id');
  });

  it('makes a misspelled column in a statement a compile error of `npm run typecheck`', async () => {
    // A file as a repository writes it, checked by the compiler and options `npm run typecheck` uses (its tsconfig).
    mkdirSync(join(root, '.test-data'), { recursive: true });
    const dir = mkdtempSync(join(root, '.test-data', 'columns-typecheck-'));
    try {
      const fixture = [
        `import { CallEntity } from '../../src/calls/entities/call.entity.js';`,
        `import { columns } from '../../src/database/columns.js';`,
        `const c = columns(CallEntity, 'c');`,
        'export const good = `SELECT 1 FROM calls c WHERE ${c.startedAt} >= $1 ORDER BY ${c.callId}`;',
        'export const bad = `SELECT 1 FROM calls c WHERE ${c.startedAd} >= $1`;',
        '',
      ].join('\n');
      writeFileSync(join(dir, 'statement.ts'), fixture);
      const tsconfig = {
        extends: '../../tsconfig.json',
        compilerOptions: { noEmit: true, rootDir: '../..' },
        files: ['statement.ts'],
        include: [],
      };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
      const tsc = join(root, 'node_modules/typescript-7/bin/tsc');
      const result = await promisify(execFile)(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false']).then(
        () => ({ code: 0, stdout: '' }),
        (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
      );
      const errors = result.stdout.split('\n').filter((line) => line.includes('error TS'));
      expect(result.code).not.toBe(0);
      // One diagnostic, on the misspelled name's line (5); the correct names on line 4 compile.
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/statement\.ts\(5,\d+\): error TS\d+: Property 'startedAd' does not exist/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
